import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OutboxEntry } from '../../src/queue/job-payloads.js';
import { JobName, QUEUE_OF_JOB } from '../../src/queue/queue-names.js';

// The type checker is the test here: each `@ts-expect-error` line must fail to compile, or `npm run typecheck` fails.
const entries: OutboxEntry[] = [
  { jobName: JobName.PlaceIvrCall, payload: { requestId: 'r1' } },
  { jobName: JobName.DeliverWebhook, payload: { deliveryId: 'd1', attempt: 1 } },
  // @ts-expect-error another job's payload under this name
  { jobName: JobName.PlaceIvrCall, payload: { deliveryId: 'd1', attempt: 1 } },
  // @ts-expect-error a misspelt field
  { jobName: JobName.HangUpIvrCall, payload: { requestID: 'r1' } },
  // @ts-expect-error a missing field
  { jobName: JobName.SendWhatsAppMessage, payload: { eventId: 'e1', channelId: 'c1' } },
];

describe('job contracts', () => {
  it('type-check each job name against its payload, and every name has a queue', () => {
    assert.equal(entries.length, 5);
    for (const name of Object.values(JobName)) assert.ok(QUEUE_OF_JOB[name], name);
  });
});
