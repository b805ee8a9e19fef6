import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AppConfig } from '../../src/config/app-config.js';
import type { Outbox } from '../../src/queue/outbox.service.js';
import type { Retention } from '../../src/queue/retention.service.js';
import type { InboundService } from '../../src/whatsapp/inbound.service.js';
import type { StatusService } from '../../src/whatsapp/status.service.js';
import type { WhatsAppContactsService } from '../../src/whatsapp/whatsapp-contacts.service.js';
import { WhatsAppIntake } from '../../src/whatsapp/whatsapp-intake.service.js';
import type { ClaimedRow, WhatsAppIntakeRepository } from '../../src/whatsapp/whatsapp-intake.repository.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('WhatsApp intake: an idle worker', () => {
  it('keeps no waker of a poll that ended by its timer (a worker is never woken: the API writes the rows)', async () => {
    let claims = 0;
    const repository = {
      claimUnscoped: (): Promise<ClaimedRow[]> => {
        claims++;
        return Promise.resolve([]);
      },
    } as unknown as WhatsAppIntakeRepository;
    const config = { runsWorker: true, whatsapp: { intakeLeaseMs: 60_000 } } as unknown as AppConfig;
    const intake = new WhatsAppIntake(
      repository,
      config,
      {} as Retention,
      {} as InboundService,
      {} as StatusService,
      {} as WhatsAppContactsService,
      {} as Outbox,
    );
    intake.onApplicationBootstrap();
    try {
      await sleep(400);
      // Each empty claim is followed by an idle poll; every poll used to leave its waker (with its
      // timer and promise) behind, 50 a second for the life of the worker.
      assert.ok(claims >= 5, `the lane polled ${claims} times`);
      const wakers = (intake as unknown as { wakers: unknown[] }).wakers;
      assert.ok(wakers.length <= 1, `${wakers.length} wakers held after ${claims} idle polls`);
    } finally {
      await intake.beforeApplicationShutdown();
    }
  });
});
