import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { DataSource } from 'typeorm';
import { PHONE_NUMBER_ID } from '../support/cloud-notifications.js';
import { grantCallPermission } from '../support/call-permission.js';
import { describeWithApp } from '../support/describe-with-app.js';
import { FakeCloudApi } from '../support/fake-cloud-api.js';
import { FakeMetaCalls } from '../support/fake-meta-calls.js';
import { waitFor } from '../support/fixtures.js';
import { uploadFile } from '../support/media-fixtures.js';
import { promptWav } from '../support/prompt-audio.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const TOKEN = 'EAAG-permission-flow-token';
const APP_SECRET = 'permission-flow-app-secret';

/**
 * The call permission flow under load and faults (API.md §15): a repeated request answers its first
 * record whatever limit was reached since.
 */
describeWithApp(
  'WhatsApp call permission: repeats, concurrency, failed requests, replies after commit, the channel template, revoked permissions',
  {
    peers: { fake: () => FakeCloudApi.start({ acceptedTokens: [TOKEN] }), receiver: () => WebhookReceiver.start() },
    env: ({ fake }) => ({
      WHATSAPP_GRAPH_URL: fake.url,
      WHATSAPP_CALL_HOST_ADDRESSES: '127.0.0.1',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      RATE_LIMIT_REQUESTS_PER_MINUTE: '100000',
      RATE_LIMIT_IVR_CALLS_PER_SECOND: '1000',
    }),
  },
  (fx) => {
    let channelId: string;
    let webhookUrl: string;
    let meta: FakeMetaCalls;
    let promptUrl: string;
    const db = () => fx.t.app.get(DataSource);

    const createIvr = (user: string, extra: Record<string, unknown> = {}) =>
      fx.a.api.post('/v1/outbound-ivr', {
        channelId,
        destinationNumber: user,
        audioFileUrl: promptUrl,
        options: [{ digit: '1', description: 'Confirm' }],
        webhookUrl: fx.receiver.url(`/ivr/${user}`),
        maxAudioRetries: 0,
        inputTimeoutMs: 3000,
        ...extra,
      });

    const record = (id: string) => fx.a.api.get(`/v1/outbound-ivr/${id}`).then((r) => r.body);
    const finished = (id: string, withinMs = 20_000) =>
      waitFor(async () => ((await record(id)).status >= 4 ? record(id) : null), withinMs, `call ${id} to finish`);
    before(async () => {
      const created = await fx.t.admin.post(`/admin/v1/workspaces/${fx.a.workspaceId}/channels`, {
        name: 'WhatsApp line',
        type: 2,
        phoneNumber: '+14155550782',
        whatsApp: {
          provider: 'cloud-api',
          phoneNumberId: PHONE_NUMBER_ID,
          wabaId: '555',
          accessToken: TOKEN,
          appSecret: APP_SECRET,
          verifyToken: 'v',
        },
      });
      assert.equal(created.status, 200, created.text);
      channelId = created.body.id;
      webhookUrl = `${fx.t.baseUrl}/v1/whatsapp/webhooks/${channelId}`;
      meta = new FakeMetaCalls(webhookUrl, APP_SECRET, PHONE_NUMBER_ID);
      fx.fake.calls = meta;
      const on = await fx.a.api.request('PUT', `/v1/channels/${channelId}/calling`, { json: { enabled: true } });
      assert.equal(on.status, 200, on.text);
      const uploaded = await uploadFile(fx.t.baseUrl, '/v1/support/upload-audio', fx.a.token, 'audioFile', {
        bytes: promptWav(),
        name: 'question.wav',
        type: 'audio/wav',
      });
      promptUrl = uploaded.body.url;
    });

    it('a repeated request (its externalId) answers its first record although the user has had 100 connected calls since', async () => {
      const user = '966510000001';
      await grantCallPermission(fx.a.api, { id: channelId, webhookUrl, appSecret: APP_SECRET, phoneNumberId: PHONE_NUMBER_ID }, user);
      meta.callee = { answer: 'reject', ringMs: 100 };
      const first = await createIvr(user, { externalId: `connected-${user}` });
      assert.equal(first.status, 200, first.text);
      await finished(first.body.id);
      // 100 calls answered in the last 24 h (copies of the first, as Meta counts connected calls).
      await db().query(
        `INSERT INTO outbound_ivr_requests
         SELECT (jsonb_populate_record(NULL::outbound_ivr_requests,
                   to_jsonb(r) || jsonb_build_object('id', gen_random_uuid(), 'external_id', NULL, 'answered_at', now(), 'call_id', NULL))).*
           FROM outbound_ivr_requests r, generate_series(1, 100) WHERE r.id = $1`,
        [first.body.id],
      );
      const fresh = await createIvr(user);
      assert.equal(fresh.status, 429, fresh.text);
      assert.equal(fresh.body.error.code, 'OutboundIvr:ConnectedCallsLimit');
      const again = await createIvr(user, { externalId: `connected-${user}` });
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.id, first.body.id);
    });
  },
);
