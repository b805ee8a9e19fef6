import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { failedAttemptRecord, type FailedAttempt } from '../../src/webhooks/failed-attempt-log.js';

const attempt = (overrides: Partial<FailedAttempt>): FailedAttempt => ({
  deliveryId: 'd-1',
  kind: 'whatsapp.message',
  targetUrl: 'https://hooks.example.com:8443/in?token=secret',
  attempt: 2,
  outcome: { kind: 'http-failure', statusCode: 500, retryAfterMs: null },
  nextAttemptAt: new Date('2026-01-01T10:04:00.000Z'),
  ...overrides,
});

describe('a failed webhook attempt as logged', () => {
  it('names the delivery, event, host (never the path or query), status, attempt and the next attempt', () => {
    const record = failedAttemptRecord(attempt({}));
    assert.deepEqual(record, {
      msg: 'Webhook delivery d-1 (whatsapp.message) to hooks.example.com:8443: attempt 2 failed (HTTP 500); next attempt at 2026-01-01T10:04:00.000Z',
      deliveryId: 'd-1',
      kind: 'whatsapp.message',
      host: 'hooks.example.com:8443',
      attempt: 2,
      statusCode: 500,
      error: 'HTTP 500',
      nextAttemptAt: '2026-01-01T10:04:00.000Z',
    });
  });

  it('says why no attempt follows: the last one, a 410, a refused target', () => {
    assert.match(
      String(failedAttemptRecord(attempt({ nextAttemptAt: null })).msg),
      /no further attempt: that was the last attempt, given up$/,
    );
    const gone = failedAttemptRecord(
      attempt({ outcome: { kind: 'http-failure', statusCode: 410, retryAfterMs: null }, nextAttemptAt: null }),
    );
    assert.match(String(gone.msg), /\(HTTP 410\); no further attempt: the receiver answered 410 Gone, delivery stopped$/);
    const refused = failedAttemptRecord(attempt({ outcome: { kind: 'refused', error: 'The endpoint is disabled' }, nextAttemptAt: null }));
    assert.match(String(refused.msg), /\(The endpoint is disabled\); no further attempt: refused, not retried$/);
    assert.equal(refused.nextAttemptAt, null);
  });

  it('carries a network error in place of a status', () => {
    const record = failedAttemptRecord(attempt({ outcome: { kind: 'network-failure', error: 'ECONNREFUSED: connect ECONNREFUSED' } }));
    assert.equal(record.statusCode, undefined);
    assert.equal(record.error, 'ECONNREFUSED: connect ECONNREFUSED');
  });
});
