import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeWithApp } from '../support/describe-with-app.js';
import { FakeCloudApi } from '../support/fake-cloud-api.js';
import { FakeMetaCalls } from '../support/fake-meta-calls.js';
import { waitFor } from '../support/fixtures.js';
import { uploadFile } from '../support/media-fixtures.js';
import { promptWav } from '../support/prompt-audio.js';
import { verifySignature, WebhookReceiver } from '../support/webhook-receiver.js';
import { startWorker, stopWorkers, type WorkerProcess } from '../support/worker-process.js';

const TOKEN = 'EAAG-inbound-worker-lost-token';
const APP_SECRET = 'inbound-worker-lost-secret';
const PHONE_NUMBER_ID = '3098773';
const CALLER = '966501238001';
const workers: WorkerProcess[] = [];

/**
 * A WhatsApp user's call (user-initiated, API.md §15) whose media lives in one worker: when that
 * worker is killed mid-call, the next worker ends the call once (Failed, `WorkerLost`), terminates
 * it at Meta, and the channel's Call Webhook (type 1 Inbound) goes out once.
 */
describeWithApp(
  "A WhatsApp user's call whose worker is killed mid-call ends Failed, WorkerLost, once, and is terminated at Meta",
  {
    peers: { fake: () => FakeCloudApi.start({ acceptedTokens: [TOKEN] }), receiver: () => WebhookReceiver.start() },
    env: ({ fake }) => ({
      WHATSAPP_GRAPH_URL: fake.url,
      WHATSAPP_CALL_HOST_ADDRESSES: '127.0.0.1',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      RATE_LIMIT_REQUESTS_PER_MINUTE: '100000',
      APP_ROLE: 'api',
      QUEUE_LOCK_DURATION_MS: '3000',
    }),
    workspaces: 1,
    beforeClose: () => stopWorkers(workers),
  },
  (fx) => {
    it('kills the worker (SIGKILL) while the inbound flow waits for a key; another worker ends the call: Failed, WorkerLost, terminated at Meta, one Call Webhook', async () => {
      const callWebhookPath = '/inbound-calls';
      const created = await fx.t.admin.post(`/admin/v1/workspaces/${fx.a.workspaceId}/channels`, {
        name: 'WhatsApp reception',
        type: 2,
        phoneNumber: '+14155550913',
        whatsApp: {
          provider: 'cloud-api',
          phoneNumberId: PHONE_NUMBER_ID,
          wabaId: '563',
          accessToken: TOKEN,
          appSecret: APP_SECRET,
          verifyToken: 'v',
        },
        postCallWebhookUrl: fx.receiver.url(callWebhookPath),
      });
      assert.equal(created.status, 200, created.text);
      const channelId = created.body.id;
      const meta = new FakeMetaCalls(`${fx.t.baseUrl}/v1/whatsapp/webhooks/${channelId}`, APP_SECRET, PHONE_NUMBER_ID);
      fx.fake.calls = meta;
      const uploaded = await uploadFile(fx.t.baseUrl, '/v1/support/upload-audio', fx.a.token, 'audioFile', {
        bytes: promptWav(),
        name: 'question.wav',
        type: 'audio/wav',
      });
      assert.equal(uploaded.status, 200, JSON.stringify(uploaded.body));
      const flow = await fx.a.api.post('/v1/outbound-ivr-flows', {
        name: 'Reception',
        startStepId: 'ask',
        steps: [
          {
            id: 'ask',
            type: 'Question',
            props: {
              audioFileUrl: uploaded.body.url,
              options: [{ digit: '1', description: 'Sales', nextStepId: 'bye' }],
              maxAudioRetries: 0,
              inputTimeoutMs: 30_000,
            },
          },
          { id: 'bye', type: 'Hangup', props: {} },
        ],
      });
      assert.equal(flow.status, 200, flow.text);
      const calling = await fx.a.api.request('PUT', `/v1/channels/${channelId}/calling`, {
        json: { enabled: true, inboundFlowId: flow.body.id },
      });
      assert.equal(calling.status, 200, calling.text);
      // The edge reads the channel from a cache of a few seconds: wait until it knows the inbound flow.
      await new Promise((resolve) => setTimeout(resolve, 5500));

      const first = startWorker();
      workers.push(first);
      const call = await meta.userCalls(CALLER);
      // Answered by the worker (pre_accept, accept) and the question under way at the caller.
      await waitFor(async () => call.actions.includes('accept'), 30_000, 'the call answered');
      await waitFor(async () => call.peer.packetsOf('audio/opus').length >= 20, 15_000, 'the question at the caller');
      const record = async () => {
        const list = await fx.a.api.get('/v1/outbound-ivr?MaxResultCount=100');
        return list.body.items.find((r: { callId: string }) => r.callId === call.id) as Record<string, any> | undefined;
      };
      await waitFor(async () => (await record())?.status === 3, 10_000, 'the inbound call in progress');

      first.child.kill('SIGKILL');
      await first.exit;
      assert.equal(call.terminatedBy, undefined, 'the call is still up at Meta when its worker dies');

      workers.push(startWorker());
      const ended = await waitFor(async () => ((await record())?.status >= 4 ? record() : null), 60_000, 'the call to end');
      assert.equal(ended.status, 7, JSON.stringify(ended));
      assert.equal(ended.result, 6);
      assert.equal(ended.direction, 1);
      assert.equal(ended.hangupCause, 'WorkerLost');
      assert.match(ended.errorMessage, /worker/i);
      await waitFor(async () => call.terminatedBy, 10_000, 'terminate at Meta');
      assert.equal(call.terminatedBy, 'business');
      const terminates = fx.fake.requests.filter(
        (r) => r.path === `/v25.0/${PHONE_NUMBER_ID}/calls` && r.body?.action === 'terminate' && r.body?.call_id === call.id,
      );
      assert.equal(terminates.length, 1, 'terminated at Meta once');

      const hook = await waitFor(async () => fx.receiver.at(callWebhookPath)[0], 20_000, 'the Call Webhook');
      assert.equal(hook.headers['webhook-event'], 'call');
      const payload = verifySignature(hook, fx.a.webhookSecret) as Record<string, unknown>;
      assert.equal(payload.callId, call.id);
      assert.equal(payload.type, 1, 'Inbound');
      assert.equal(payload.status, 7, 'Failed');
      assert.equal(payload.channelKind, 'WhatsApp');
      assert.equal(payload.callerNumber, `+${CALLER}`);
      // Meta's own terminate webhook (after ours) and the sweeper change nothing more.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      assert.equal(fx.receiver.at(callWebhookPath).length, 1, 'one Call Webhook');
      assert.equal((await record())!.hangupCause, 'WorkerLost', 'still WorkerLost');
      await meta.closeAll();
    });
  },
);
