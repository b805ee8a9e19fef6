import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readTierUpdates } from '../../src/whatsapp/inbound/tier-updates.js';
import { accountUpdate, phoneNumberQualityUpdate } from '../support/cloud-notifications.js';

describe("Meta's tier webhooks read into tier updates (API.md §14)", () => {
  it('prefers the portfolio limit, falls back to current_limit, and leaves the limit alone for TIER_NOT_SET', () => {
    const [both] = readTierUpdates(phoneNumberQualityUpdate('14155550701', 'UPGRADE', { current: 'TIER_10K', perBusiness: 'TIER_100K' }));
    assert.deepEqual(both, {
      field: 'phone_number_quality_update',
      event: 'UPGRADE',
      wabaId: '102290129340398',
      phoneNumber: '+14155550701',
      messagingLimit: 100000,
    });
    const [legacy] = readTierUpdates(phoneNumberQualityUpdate('14155550701', 'DOWNGRADE', { old: 'TIER_2K', current: 'TIER_250' }));
    assert.equal(legacy.messagingLimit, 250);
    const [unlimited] = readTierUpdates(phoneNumberQualityUpdate('14155550701', 'UPGRADE', { perBusiness: 'TIER_UNLIMITED' }));
    assert.equal(unlimited.messagingLimit, null);
    const [onboarding] = readTierUpdates(phoneNumberQualityUpdate('14155550701', 'ONBOARDING', { current: 'TIER_NOT_SET' }));
    assert.equal('messagingLimit' in onboarding, false);
  });

  it('reads THROUGHPUT_UPGRADE as 1,000/s without touching the limit, FLAGGED as RED and UNFLAGGED as UNKNOWN', () => {
    const [upgrade] = readTierUpdates(phoneNumberQualityUpdate('14155550701', 'THROUGHPUT_UPGRADE', { current: 'TIER_UNLIMITED' }));
    assert.equal(upgrade.throughputPerSecond, 1000);
    assert.equal('messagingLimit' in upgrade, false);
    assert.equal(readTierUpdates(phoneNumberQualityUpdate('14155550701', 'FLAGGED'))[0].qualityRating, 'RED');
    assert.equal(readTierUpdates(phoneNumberQualityUpdate('14155550701', 'UNFLAGGED'))[0].qualityRating, 'UNKNOWN');
  });

  it('reads a restriction of business-initiated messaging or a disabled account as limit 0, and ignores other account events and junk', () => {
    const [restricted] = readTierUpdates(
      accountUpdate({ event: 'ACCOUNT_RESTRICTION', restriction_info: [{ restriction_type: 'RESTRICTED_BIZ_INITIATED_MESSAGING' }] }),
    );
    assert.equal(restricted.messagingLimit, 0);
    assert.equal(restricted.phoneNumber, null);
    const [disabled] = readTierUpdates(accountUpdate({ event: 'DISABLED_UPDATE', ban_info: { waba_ban_state: 'DISABLE' } }));
    assert.equal(disabled.messagingLimit, 0);
    assert.deepEqual(
      readTierUpdates(
        accountUpdate({ event: 'ACCOUNT_RESTRICTION', restriction_info: [{ restriction_type: 'RESTRICTED_ADD_PHONE_NUMBER_ACTION' }] }),
      ),
      [],
    );
    assert.deepEqual(readTierUpdates(accountUpdate({ event: 'VERIFIED_ACCOUNT' })), []);
    assert.deepEqual(readTierUpdates({ entry: 'nonsense' }), []);
    assert.deepEqual(readTierUpdates(null), []);
  });
});
