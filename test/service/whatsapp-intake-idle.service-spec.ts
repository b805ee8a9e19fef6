import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { WhatsAppIntakeRepository } from '../../src/whatsapp/inbound/whatsapp-intake.repository.js';
import { WhatsAppIntake } from '../../src/whatsapp/inbound/whatsapp-intake.service.js';
import { WhatsAppModule } from '../../src/whatsapp/whatsapp.module.js';
import { WorkspacesModule } from '../../src/workspaces/workspaces.module.js';
import { serviceTestModule, type ServiceTestContext } from './support/service-module.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('WhatsApp intake: an idle worker (service tier)', () => {
  let ctx: ServiceTestContext;

  // A worker: its intake lane starts with the module and polls the (empty) intake table, here every 20 ms.
  before(async () => {
    ctx = await serviceTestModule([WorkspacesModule, WhatsAppModule], { APP_ROLE: 'worker', WHATSAPP_INTAKE_IDLE_POLL_MS: '20' });
  });
  after(() => ctx.close());

  it('keeps no waker of a poll that ended by its timer (nobody writes, so nothing wakes it)', async () => {
    // The real repository, its claims counted as they go through.
    const repository = ctx.get(WhatsAppIntakeRepository);
    const claim = repository.claimUnscoped.bind(repository);
    let claims = 0;
    repository.claimUnscoped = (...args) => {
      claims++;
      return claim(...args);
    };
    await sleep(400);
    // Each empty claim is followed by an idle poll; every poll used to leave its waker (with its
    // timer and promise) behind, one per poll for as long as nothing was written.
    assert.ok(claims >= 5, `the lane polled ${claims} times`);
    const wakers = (ctx.get(WhatsAppIntake) as unknown as { wakers: unknown[] }).wakers;
    assert.ok(wakers.length <= 1, `${wakers.length} wakers held after ${claims} idle polls`);
  });
});
