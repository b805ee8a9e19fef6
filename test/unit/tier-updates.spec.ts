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

  it('reads a restriction of business-initiated messaging (until its expiration) or a disabled account as imposed, their lifting (a restriction_info without it, a REINSTATE) as lifted, and ignores other account events and junk', () => {
    const [restricted] = readTierUpdates(
      accountUpdate({ event: 'ACCOUNT_RESTRICTION', restriction_info: [{ restriction_type: 'RESTRICTED_BIZ_INITIATED_MESSAGING' }] }),
    );
    assert.deepEqual(restricted.restriction, { impose: { reason: 'RESTRICTED_BIZ_INITIATED_MESSAGING', endsAt: null } });
    assert.equal(restricted.messagingLimit, undefined, 'the limit underneath is kept');
    assert.equal(restricted.phoneNumber, null);
    const [until] = readTierUpdates(
      accountUpdate({
        event: 'ACCOUNT_RESTRICTION',
        restriction_info: [{ restriction_type: 'RESTRICTED_BIZ_INITIATED_MESSAGING', expiration: '2026-12-30T00:00:00+0000' }],
      }),
    );
    assert.deepEqual(until.restriction, {
      impose: { reason: 'RESTRICTED_BIZ_INITIATED_MESSAGING', endsAt: new Date('2026-12-30T00:00:00Z') },
    });
    // Meta's examples write the expiration as ISO 8601 with +0000; a Unix time (seconds, as a number or
    // digits) reads as the same instant, and an unreadable one as no end.
    for (const expiration of [1798588800, '1798588800', '2026-12-30T00:00:00Z']) {
      const [epoch] = readTierUpdates(
        accountUpdate({
          event: 'ACCOUNT_RESTRICTION',
          restriction_info: [{ restriction_type: 'RESTRICTED_BIZ_INITIATED_MESSAGING', expiration }],
        }),
      );
      assert.deepEqual(epoch.restriction, {
        impose: { reason: 'RESTRICTED_BIZ_INITIATED_MESSAGING', endsAt: new Date('2026-12-30T00:00:00Z') },
      });
    }
    const [unreadable] = readTierUpdates(
      accountUpdate({
        event: 'ACCOUNT_RESTRICTION',
        restriction_info: [{ restriction_type: 'RESTRICTED_BIZ_INITIATED_MESSAGING', expiration: 'soon' }],
      }),
    );
    assert.deepEqual(unreadable.restriction, { impose: { reason: 'RESTRICTED_BIZ_INITIATED_MESSAGING', endsAt: null } });
    const [disabled] = readTierUpdates(accountUpdate({ event: 'DISABLED_UPDATE', ban_info: { waba_ban_state: 'DISABLE' } }));
    assert.deepEqual(disabled.restriction, { impose: { reason: 'DISABLED', endsAt: null } });
    const [reinstated] = readTierUpdates(accountUpdate({ event: 'DISABLED_UPDATE', ban_info: { waba_ban_state: ['REINSTATE'] } }));
    assert.deepEqual(reinstated.restriction, { lift: 'DISABLED' });
    for (const restrictionInfo of [[], [{ restriction_type: 'RESTRICTED_ADD_PHONE_NUMBER_ACTION' }]]) {
      const [lifted] = readTierUpdates(accountUpdate({ event: 'ACCOUNT_RESTRICTION', restriction_info: restrictionInfo }));
      assert.deepEqual(lifted.restriction, { lift: 'RESTRICTED_BIZ_INITIATED_MESSAGING' });
    }
    assert.deepEqual(
      readTierUpdates(accountUpdate({ event: 'DISABLED_UPDATE', ban_info: { waba_ban_state: 'SCHEDULE_FOR_DISABLE' } })),
      [],
    );
    assert.deepEqual(readTierUpdates(accountUpdate({ event: 'ACCOUNT_VIOLATION', violation_info: { violation_type: 'SCAM' } })), []);
    assert.deepEqual(readTierUpdates(accountUpdate({ event: 'VERIFIED_ACCOUNT' })), []);
    assert.deepEqual(readTierUpdates({ entry: 'nonsense' }), []);
    assert.deepEqual(readTierUpdates(null), []);
  });
});
