import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readNotification, type CloudUserPreference, type CloudWebhookNotification } from '../../src/whatsapp/inbound/cloud-webhook.js';
import { DEFAULT_START_WORDS, DEFAULT_STOP_WORDS, keywordConsent, mayBeKeyword, normalizeKeyword } from '../../src/send-policy/keywords.js';

const defaults = { stopWords: DEFAULT_STOP_WORDS, startWords: DEFAULT_START_WORDS };

describe('stop and start words', () => {
  it('match a whole message, trimmed, inner spaces collapsed, in any case; Arabic alef forms read alike', () => {
    for (const text of ['STOP', 'stop', ' Stop\n', '\u00a0UNSUBSCRIBE\t', 'إيقاف', ' ايقاف ', 'الغاء', 'إلغاء']) {
      assert.equal(keywordConsent(text, defaults), 'OptedOut', JSON.stringify(text));
    }
    for (const text of ['START', 'start ', 'اشتراك']) assert.equal(keywordConsent(text, defaults), 'OptedIn', JSON.stringify(text));
    const spaced = { stopWords: ['stop all'], startWords: [] };
    assert.equal(keywordConsent('  STOP \t  ALL ', spaced), 'OptedOut');
    assert.equal(keywordConsent('STOPALL', spaced), null);
  });

  it('do not match a sentence, punctuation, a repeated word or nothing', () => {
    for (const text of ['Please STOP', 'STOP!', 'stop stop', 'STOPP', '', '   ', 'START now', 'لا إيقاف']) {
      assert.equal(keywordConsent(text, defaults), null, JSON.stringify(text));
    }
    assert.equal(keywordConsent('STOP', { stopWords: [], startWords: [] }), null, 'no words, no match');
  });

  it('skip long texts without reading the policy', () => {
    assert.equal(mayBeKeyword('STOP'), true);
    assert.equal(mayBeKeyword('x'.repeat(51)), false);
    assert.equal(mayBeKeyword(undefined), false);
    assert.equal(normalizeKeyword('  A   b  '), 'a b');
  });
});

describe("Meta's user_preferences notification", () => {
  const notification = (preferences: unknown[]): CloudWebhookNotification => ({
    object: 'whatsapp_business_account',
    entry: [
      {
        changes: [
          {
            field: 'user_preferences',
            value: {
              contacts: [{ profile: { name: 'Sara' }, wa_id: '14155550123' }],
              user_preferences: preferences as CloudUserPreference[],
            },
          },
        ],
      },
    ],
  });

  it('reads marketing stop and resume with the user and the time', () => {
    const read = readNotification(
      notification([
        {
          wa_id: '14155550123',
          detail: 'User requested to stop marketing messages',
          category: 'marketing_messages',
          value: 'stop',
          timestamp: '1767225600',
        },
        { wa_id: '14155550123', category: 'marketing_messages', value: 'resume', timestamp: 1767225700 },
      ]),
    );
    assert.deepEqual(read.preferences, [
      {
        phoneNumber: '+14155550123',
        userId: null,
        parentUserId: null,
        profileName: 'Sara',
        status: 'OptedOut',
        at: '2026-01-01T00:00:00.000Z',
      },
      {
        phoneNumber: '+14155550123',
        userId: null,
        parentUserId: null,
        profileName: 'Sara',
        status: 'OptedIn',
        at: '2026-01-01T00:01:40.000Z',
      },
    ]);
    assert.deepEqual(read.messages, []);
  });

  it('ignores other categories, other values and entries naming nobody', () => {
    const read = readNotification(
      notification([
        { wa_id: '14155550123', category: 'other', value: 'stop' },
        { wa_id: '14155550123', category: 'marketing_messages', value: 'pause' },
        { category: 'marketing_messages', value: 'stop' },
        null,
      ]),
    );
    assert.deepEqual(
      read.preferences.map((p) => p.phoneNumber),
      [],
    );
  });
});
