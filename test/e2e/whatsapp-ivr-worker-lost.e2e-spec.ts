import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeWithApp } from '../support/describe-with-app.js';
import { FakeCloudApi } from '../support/fake-cloud-api.js';
import { grantCallPermission } from '../support/call-permission.js';
import { FakeMetaCalls } from '../support/fake-meta-calls.js';
import { waitFor } from '../support/fixtures.js';
import { uploadFile } from '../support/media-fixtures.js';
import { promptWav } from '../support/prompt-audio.js';
import { verifySignature, WebhookReceiver } from '../support/webhook-receiver.js';
import { startWorker, stopWorkers, type WorkerProcess } from '../support/worker-process.js';

const TOKEN = 'EAAG-worker-lost-token';
const APP_SECRET = 'worker-lost-secret';
const PHONE_NUMBER_ID = '3098767';
const workers: WorkerProcess[] = [];

/**
 * A WhatsApp IVR call's media lives in one worker (API.md §15): when that worker is killed mid-call,
 * the next worker ends the call once (Failed, TechnicalFailure, `WorkerLost`), terminates it at Meta,
 * and the outcome webhook goes out once.
 */
describeWithApp(
  'A WhatsApp IVR call whose worker is killed mid-call ends Failed, WorkerLost, once',
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
    it('kills the worker (SIGKILL) while the question waits; another worker ends the call: Failed, WorkerLost, terminated at Meta, one outcome webhook', async () => {
      const created = await fx.t.admin.post(`/admin/v1/workspaces/${fx.a.workspaceId}/channels`, {
        name: 'WhatsApp IVR line',
        type: 2,
        phoneNumber: '+14155550903',
        whatsApp: {
          provider: 'cloud-api',
          phoneNumberId: PHONE_NUMBER_ID,
          wabaId: '557',
          accessToken: TOKEN,
          appSecret: APP_SECRET,
          verifyToken: 'v',
        },
      });
      assert.equal(created.status, 200, created.text);
      const channelId = created.body.id;
      const meta = new FakeMetaCalls(`${fx.t.baseUrl}/v1/whatsapp/webhooks/${channelId}`, APP_SECRET, PHONE_NUMBER_ID);
      fx.fake.calls = meta;
      meta.callee = { answer: 'accept', ringMs: 100 };
      assert.equal((await fx.a.api.request('PUT', `/v1/channels/${channelId}/calling`, { json: { enabled: true } })).status, 200);
      const uploaded = await uploadFile(fx.t.baseUrl, '/v1/support/upload-audio', fx.a.token, 'audioFile', {
        bytes: promptWav(),
        name: 'question.wav',
        type: 'audio/wav',
      });
      assert.equal(uploaded.status, 200, JSON.stringify(uploaded.body));

      const first = startWorker();
      workers.push(first);
      const webhooks = `${fx.t.baseUrl}/v1/whatsapp/webhooks/${channelId}`;
      await grantCallPermission(
        fx.a.api,
        { id: channelId, webhookUrl: webhooks, appSecret: APP_SECRET, phoneNumberId: PHONE_NUMBER_ID },
        '966501234567',
      );
      const webhookUrl = fx.receiver.url('/ivr/lost');
      const ivr = await fx.a.api.post('/v1/outbound-ivr', {
        channelId,
        destinationNumber: '966501234567',
        audioFileUrl: uploaded.body.url,
        options: [{ digit: '1', description: 'Confirm' }],
        webhookUrl,
        inputTimeoutMs: 30_000,
        maxAudioRetries: 0,
      });
      assert.equal(ivr.status, 200, ivr.text);
      const id = ivr.body.id as string;
      await waitFor(async () => (await fx.a.api.get(`/v1/outbound-ivr/${id}`)).body.status === 3, 30_000, 'in progress');
      const far = [...meta.calls.values()].find((c) => c.tracking === id)!;
      first.child.kill('SIGKILL');
      await first.exit;
      assert.equal(far.terminatedBy, undefined, 'the call is still up at Meta when its worker dies');

      workers.push(startWorker());
      const record = await waitFor(
        async () => {
          const res = await fx.a.api.get(`/v1/outbound-ivr/${id}`);
          return res.body.status >= 4 ? res.body : null;
        },
        60_000,
        'the call to end',
      );
      assert.equal(record.status, 7);
      assert.equal(record.result, 6);
      assert.equal(record.hangupCause, 'WorkerLost');
      assert.match(record.errorMessage, /worker/i);
      await waitFor(async () => far.terminatedBy, 10_000, 'terminate at Meta');
      assert.equal(far.terminatedBy, 'business');
      const path = new URL(webhookUrl).pathname;
      const delivery = await waitFor(async () => fx.receiver.at(path)[0], 20_000, 'the outcome webhook');
      assert.equal((verifySignature(delivery, fx.a.webhookSecret) as { status: number }).status, 7);
      await new Promise((resolve) => setTimeout(resolve, 2000));
      assert.equal(fx.receiver.at(path).length, 1, 'one outcome webhook');
      await meta.closeAll();
    });
  },
);
