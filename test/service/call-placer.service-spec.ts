import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Principal } from '../../src/auth/principal.js';
import { ChannelType } from '../../src/channels/channel.entity.js';
import { ChannelsService } from '../../src/channels/channels.service.js';
import { CallPlacer } from '../../src/outbound-ivr/call-placer.service.js';
import { OutboundIvrResult, OutboundIvrStatus } from '../../src/outbound-ivr/ivr-enums.js';
import { OutboundIvrModule } from '../../src/outbound-ivr/outbound-ivr.module.js';
import { OutboundIvrService } from '../../src/outbound-ivr/outbound-ivr.service.js';
import { JobName } from '../../src/queue/queue-names.js';
import { WorkspacesModule } from '../../src/workspaces/workspaces.module.js';
import { WorkspacesService } from '../../src/workspaces/workspaces.service.js';
import { serviceTestModule, type ServiceTestContext } from './support/service-module.js';

/** What the simulated callee does on a sandbox voice channel (no waiting: ring and talk take 0 ms). */
type Callee = { answer: boolean | 'busy'; pressDigits?: string[] };

describe('The call placer’s outcomes (service tier, sandbox voice provider)', () => {
  let ctx: ServiceTestContext;
  let principal: Principal;

  /** Creates a call on a channel whose callee behaves as `callee`, places it as the worker would, and reads it back. */
  const placeCall = async (callee: Callee) => {
    const channel = await ctx.get(ChannelsService).create(principal.workspaceId, {
      name: `Callee ${JSON.stringify(callee)}`,
      type: ChannelType.PhoneNumber,
      phoneNumber: '+14155550111',
      voice: { provider: 'sandbox', sandbox: { ringMs: 0, talkMs: 0, pressDigits: [], ...callee } },
    } as never);
    const ivr = ctx.get(OutboundIvrService);
    const created = await ivr.create(principal, {
      channelId: channel.id,
      destinationNumber: '+966501234567',
      ttsText: 'Press 1 to confirm your appointment.',
      options: [{ digit: '1', description: 'Confirm' }],
      webhookUrl: 'https://hooks.example.com/ivr',
      maxAudioRetries: 1,
      inputTimeoutMs: 1000,
      digitTimeoutMs: 1000,
    });
    const placeJob = ctx.relay.pushed.find((row) => row.jobName === JobName.PlaceIvrCall && row.payload.requestId === created.id);
    assert.ok(placeJob, 'creating the call queued its placement');
    await ctx.get(CallPlacer).place({ id: created.id, workspaceId: principal.workspaceId }, false);
    return ivr.get(principal.workspaceId, created.id);
  };
  const outcomeWebhooks = (id: string) =>
    ctx.dataSource.query<Array<{ payload: { status: number; result: number } }>>(
      `SELECT payload FROM webhook_deliveries WHERE kind = 'outbound_ivr.completed' AND payload->>'id' = $1`,
      [id],
    );

  before(async () => {
    ctx = await serviceTestModule([WorkspacesModule, OutboundIvrModule], { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' });
    const { workspace } = await ctx.get(WorkspacesService).create('Calls');
    principal = { serviceAccountId: randomUUID(), workspaceId: workspace.id, scopes: [] };
  });
  after(() => ctx.close());

  it('an answered call with the option pressed ends Completed / DigitPressed, with one outcome webhook', async () => {
    const call = await placeCall({ answer: true, pressDigits: ['1'] });
    assert.equal(call.status, OutboundIvrStatus.Completed);
    assert.equal(call.result, OutboundIvrResult.DigitPressed);
    assert.equal(call.pressedDigit, '1');
    const hooks = await outcomeWebhooks(call.id);
    assert.equal(hooks.length, 1);
    assert.deepEqual([hooks[0].payload.status, hooks[0].payload.result], [OutboundIvrStatus.Completed, OutboundIvrResult.DigitPressed]);
  });

  it('a busy callee ends Busy / DestinationBusy', async () => {
    const call = await placeCall({ answer: 'busy' });
    assert.deepEqual([call.status, call.result], [OutboundIvrStatus.Busy, OutboundIvrResult.DestinationBusy]);
    assert.equal((await outcomeWebhooks(call.id)).length, 1);
  });

  it('a callee who never answers ends NoAnswer / NotAnswered', async () => {
    const call = await placeCall({ answer: false });
    assert.deepEqual([call.status, call.result], [OutboundIvrStatus.NoAnswer, OutboundIvrResult.NotAnswered]);
  });

  it('an answered call with no digit pressed ends Completed / NoInput after its retries', async () => {
    const call = await placeCall({ answer: true, pressDigits: [] });
    assert.deepEqual([call.status, call.result], [OutboundIvrStatus.Completed, OutboundIvrResult.NoInput]);
    assert.equal(call.pressedDigit, null);
  });

  it('placing a finished call again changes nothing and sends no second webhook', async () => {
    const call = await placeCall({ answer: true, pressDigits: ['1'] });
    await ctx.get(CallPlacer).place({ id: call.id, workspaceId: principal.workspaceId }, false);
    const again = await ctx.get(OutboundIvrService).get(principal.workspaceId, call.id);
    assert.deepEqual([again.status, again.result, again.pressedDigit], [call.status, call.result, call.pressedDigit]);
    assert.equal((await outcomeWebhooks(call.id)).length, 1);
  });
});
