import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeWithApp } from '../support/describe-with-app.js';
import { createChannel, waitFor } from '../support/fixtures.js';
import { verifySignature, WebhookReceiver } from '../support/webhook-receiver.js';

const CALLER = '966501234567';

/**
 * WhatsApp calls on a sandbox number (API.md §15), both ways, without Meta: a simulated user's
 * call answered by the channel's inbound flow, and Create Outbound IVR simulated as a WhatsApp call;
 * the sandbox plays the other party from the channel's `voice.sandbox` settings.
 */
describeWithApp(
  'WhatsApp calls on a sandbox number: a user calls in, the business calls out, both simulated',
  {
    peers: { receiver: () => WebhookReceiver.start() },
    env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', RATE_LIMIT_IVR_CALLS_PER_SECOND: '1000' },
  },
  (fx) => {
    let channelId: string;
    let flowId: string;
    const callHooks = '/calls';

    const userCall = (id: string, fromNumber = CALLER) => fx.t.admin.post(`/admin/v1/channels/${id}/sandbox/user-call`, { fromNumber });

    const finished = (id: string) =>
      waitFor(
        async () => {
          const res = await fx.a.api.get(`/v1/outbound-ivr/${id}`);
          return res.body.status >= 4 ? res.body : null;
        },
        15_000,
        `call ${id} to finish`,
      );

    const callWebhookOf = (callId: string) =>
      waitFor(
        async () =>
          fx.receiver
            .at(callHooks)
            .map((d) => verifySignature(d, fx.a.webhookSecret) as Record<string, unknown>)
            .find((p) => p.callId === callId),
        10_000,
        `the Call Webhook of ${callId}`,
      );

    before(async () => {
      const channel = await createChannel(fx.t, fx.a.workspaceId, {
        name: 'WhatsApp sandbox line',
        type: 2,
        phoneNumber: '+14155550777',
        whatsApp: { provider: 'sandbox' },
        voice: { provider: 'sandbox', sandbox: { answer: true, pressDigits: ['2'], ringMs: 100, talkMs: 100 } },
        postCallWebhookUrl: fx.receiver.url(callHooks),
      });
      channelId = channel.id;
      const flow = await fx.a.api.post('/v1/outbound-ivr-flows', {
        name: 'Reception',
        startStepId: 'ask',
        steps: [
          {
            id: 'ask',
            type: 'Question',
            props: {
              ttsText: 'Press 1 for sales, 2 for support.',
              options: [
                { digit: '1', description: 'Sales' },
                { digit: '2', description: 'Support' },
              ],
            },
          },
        ],
      });
      assert.equal(flow.status, 200, flow.text);
      flowId = flow.body.id;
    });

    it('refused with a 400 before calling is enabled, and for a channel that is not a sandbox WhatsApp number', async () => {
      const before = await userCall(channelId);
      assert.equal(before.status, 400, before.text);
      assert.match(before.body.error.message, /Calling is not enabled/);
      const cloud = await fx.t.admin.post(`/admin/v1/workspaces/${fx.a.workspaceId}/channels`, {
        name: 'Cloud line',
        type: 2,
        phoneNumber: '+14155550778',
        whatsApp: { provider: 'cloud-api', phoneNumberId: '77001', wabaId: '77002', accessToken: 't', appSecret: 's', verifyToken: 'v' },
      });
      assert.equal(cloud.status, 200, cloud.text);
      const res = await userCall(cloud.body.id);
      assert.equal(res.status, 400, res.text);
      assert.match(res.body.error.message, /not a sandbox WhatsApp number/);
      const bad = await userCall(channelId, 'not a number');
      assert.equal(bad.status, 400, bad.text);
      assert.equal((await fx.a.api.get('/v1/outbound-ivr')).body.totalCount, 0, 'nothing recorded');
    });

    it('with calling on and no flow, a user call is rejected: no record', async () => {
      const on = await fx.a.api.request('PUT', `/v1/channels/${channelId}/calling`, { json: { enabled: true } });
      assert.equal(on.status, 200, on.text);
      const res = await userCall(channelId);
      assert.equal(res.status, 200, res.text);
      assert.match(res.body.callId, /^SBwacid\./);
      assert.equal(res.body.outboundIvrRequestId, null);
      assert.equal((await fx.a.api.get('/v1/outbound-ivr')).body.totalCount, 0);
    });

    it('a user call is answered by the inbound flow: the simulated caller presses 2; Call Webhook type 1 over WhatsApp, timeline Inbound', async () => {
      const on = await fx.a.api.request('PUT', `/v1/channels/${channelId}/calling`, { json: { enabled: true, inboundFlowId: flowId } });
      assert.equal(on.status, 200, on.text);
      const res = await userCall(channelId);
      assert.equal(res.status, 200, res.text);
      const record = await finished(res.body.outboundIvrRequestId);
      assert.equal(record.direction, 1);
      assert.equal(record.status, 4);
      assert.equal(record.callId, res.body.callId);
      assert.equal(record.destinationNumber, `+${CALLER}`);
      assert.equal(record.flowId, flowId);
      assert.equal(record.webhookUrl, null);
      assert.deepEqual(
        record.answers.map((a: { digit: string; description: string }) => [a.digit, a.description]),
        [['2', 'Support']],
      );
      const hook = await callWebhookOf(res.body.callId);
      assert.equal(hook.type, 1);
      assert.equal(hook.channelKind, 'WhatsApp');
      assert.equal(hook.callerNumber, `+${CALLER}`);
      assert.equal(hook.calleeNumber, '+14155550777');
      assert.equal(hook.status, 1);
      const conversation = (await fx.a.api.post('/v2/conversations/service-account/create', { channelId, phoneNumber: `+${CALLER}` })).body
        .conversation;
      const timeline = await fx.a.api.get(`/v2/conversations/service-account/${conversation.id}/timeline`);
      const event = timeline.body.items.find((e: { sourceType: number }) => e.sourceType === 1);
      assert.equal(event?.direction, 1, JSON.stringify(timeline.body.items));
    });

    it('Create Outbound IVR on the sandbox WhatsApp number is a simulated WhatsApp call: Completed with the digit, Call Webhook type 2 over WhatsApp', async () => {
      const created = await fx.a.api.post('/v1/outbound-ivr', {
        channelId,
        destinationNumber: '966507654321',
        ttsText: 'Your order is ready. Press 1 to collect today, 2 for tomorrow.',
        options: [
          { digit: '1', description: 'Today' },
          { digit: '2', description: 'Tomorrow' },
        ],
        webhookUrl: fx.receiver.url('/outcome'),
      });
      assert.equal(created.status, 200, created.text);
      assert.equal(created.body.direction, 2);
      const record = await finished(created.body.id);
      assert.equal(record.status, 4, JSON.stringify(record));
      assert.equal(record.pressedDigit, '2', JSON.stringify(record));
      const hook = await callWebhookOf(record.callId);
      assert.equal(hook.type, 2);
      assert.equal(hook.channelKind, 'WhatsApp');
      await waitFor(async () => fx.receiver.at('/outcome')[0], 10_000, 'the outcome webhook');
    });

    it("on a channel with a phone line too, a user's WhatsApp call still reports channelKind WhatsApp", async () => {
      const dual = await createChannel(fx.t, fx.a.workspaceId, {
        name: 'Phone and WhatsApp',
        phoneNumber: '+14155550779',
        voice: { provider: 'sandbox', sandbox: { answer: true, pressDigits: ['1'], ringMs: 100, talkMs: 100 } },
        postCallWebhookUrl: fx.receiver.url(callHooks),
      });
      const on = await fx.a.api.request('PUT', `/v1/channels/${dual.id}/calling`, { json: { enabled: true, inboundFlowId: flowId } });
      assert.equal(on.status, 200, on.text);
      const res = await userCall(dual.id, '966501112222');
      assert.equal(res.status, 200, res.text);
      assert.equal((await finished(res.body.outboundIvrRequestId)).pressedDigit, '1');
      const hook = await callWebhookOf(res.body.callId);
      assert.equal(hook.type, 1);
      assert.equal(hook.channelKind, 'WhatsApp');
    });

    it("another workspace cannot see the inbound call's record", async () => {
      const list = await fx.a.api.get('/v1/outbound-ivr?MaxResultCount=100');
      const inbound = list.body.items.find((r: { direction: number }) => r.direction === 1);
      assert.ok(inbound);
      assert.equal((await fx.b.api.get(`/v1/outbound-ivr/${inbound.id}`)).status, 404);
      assert.equal((await fx.b.api.get('/v1/outbound-ivr')).body.totalCount, 0);
    });
  },
);
