import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { inbound, PHONE_NUMBER_ID } from '../support/cloud-notifications.js';
import { callPermissionReply } from '../support/call-permission.js';
import { describeWithApp } from '../support/describe-with-app.js';
import { FakeCloudApi } from '../support/fake-cloud-api.js';
import { FakeMetaCalls } from '../support/fake-meta-calls.js';
import { waitFor } from '../support/fixtures.js';
import { uploadFile } from '../support/media-fixtures.js';
import { promptWav } from '../support/prompt-audio.js';
import { verifySignature, WebhookReceiver } from '../support/webhook-receiver.js';

const TOKEN = 'EAAG-permission-token';
const APP_SECRET = 'permission-app-secret';

/**
 * WhatsApp call permission (API.md §15): Create Outbound IVR to a user who has not allowed this
 * number to call sends Meta's call permission request and waits (`awaitingPermission`); the user's
 * `call_permission_reply` (the real `messages` webhook) places the call or ends it PermissionDenied;
 * no answer ends it NoPermission; Meta's limits on asking are kept before Meta would refuse.
 */
describeWithApp(
  'WhatsApp call permission: asked, granted, declined, unanswered, and the limits on asking',
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
    let unanswered: { id: string; createdAt: number };
    let seq = 0;

    const notify = async (notification: unknown) => assert.equal(await FakeCloudApi.notify(webhookUrl, APP_SECRET, notification), 200);

    /** The user writes first: the 24 h service window opens. */
    const userWrites = async (user: string) => {
      await notify(inbound({ phone: user, name: 'Customer' }, `wamid.in.${user}.${++seq}`, { type: 'text', text: { body: 'Hi' } }));
      await waitFor(
        async () => {
          const res = await fx.a.api.post('/v2/conversations/service-account/create', { channelId, phoneNumber: `+${user}` });
          const timeline = await fx.a.api.get(`/v2/conversations/service-account/${res.body.conversation.id}/timeline`);
          return timeline.body.items.some((e: { direction: number }) => e.direction === 1);
        },
        15_000,
        `the message of ${user}`,
      );
    };

    const replies = (user: string, response: 'accept' | 'reject') =>
      notify(callPermissionReply(PHONE_NUMBER_ID, user, response, false, `wamid.reply.${user}.${++seq}`));

    const createIvr = async (user: string, extra: Record<string, unknown> = {}) => {
      const res = await fx.a.api.post('/v1/outbound-ivr', {
        channelId,
        destinationNumber: user,
        audioFileUrl: promptUrl,
        options: [{ digit: '1', description: 'Confirm' }],
        webhookUrl: fx.receiver.url(`/ivr/${user}`),
        maxAudioRetries: 0,
        inputTimeoutMs: 3000,
        ...extra,
      });
      return res;
    };

    const record = (id: string) => fx.a.api.get(`/v1/outbound-ivr/${id}`).then((r) => r.body);
    const finished = (id: string, withinMs = 20_000) =>
      waitFor(async () => ((await record(id)).status >= 4 ? record(id) : null), withinMs, `call ${id} to finish`);
    const permissionRequestTo = (user: string) =>
      waitFor(
        async () => fx.fake.sends.find((r) => r.body?.to === user && r.body?.interactive?.type === 'call_permission_request'),
        15_000,
        `the call permission request to ${user}`,
      );
    const connectsTo = (user: string) =>
      fx.fake.requests.filter((r) => r.path === `/v25.0/${PHONE_NUMBER_ID}/calls` && r.body?.action === 'connect' && r.body?.to === user);
    const consentOf = async (user: string) => {
      const res = await fx.a.api.post('/v2/conversations/service-account/create', { channelId, phoneNumber: `+${user}` });
      return (await fx.a.api.get(`/v1/contacts/${res.body.conversation.contactId}/consent`)).body.whatsAppCalls;
    };

    before(async () => {
      const created = await fx.t.admin.post(`/admin/v1/workspaces/${fx.a.workspaceId}/channels`, {
        name: 'WhatsApp line',
        type: 2,
        phoneNumber: '+14155550781',
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
      const on = await fx.a.api.request('PUT', `/v1/channels/${channelId}/calling`, { json: { enabled: true, callbackPermission: true } });
      assert.equal(on.status, 200, on.text);
      const uploaded = await uploadFile(fx.t.baseUrl, '/v1/support/upload-audio', fx.a.token, 'audioFile', {
        bytes: promptWav(),
        name: 'question.wav',
        type: 'audio/wav',
      });
      promptUrl = uploaded.body.url;
      // A user who never answers: the shortest wait (1 minute) runs while the other tests do.
      await userWrites('966500000009');
      const res = await createIvr('966500000009', { permissionTimeoutMinutes: 1 });
      assert.equal(res.status, 200, res.text);
      unanswered = { id: res.body.id, createdAt: Date.now() };
    });

    it('inside the service window: the interactive request is sent and the call waits; the user accepts, the call is placed and runs', async () => {
      const user = '966500000001';
      await userWrites(user);
      assert.equal((await consentOf(user)).status, 'Unknown');
      const res = await createIvr(user, { permissionRequestText: 'May we call you about your delivery?' });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.status, 0);
      assert.equal(res.body.awaitingPermission, true);
      assert.ok(Date.parse(res.body.permissionDeadline) > Date.now() + 59 * 60_000, 'the default wait is 60 minutes');

      const request = await permissionRequestTo(user);
      assert.deepEqual(request.body.interactive, {
        type: 'call_permission_request',
        action: { name: 'call_permission_request' },
        body: { text: 'May we call you about your delivery?' },
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(connectsTo(user).length, 0, 'no call before the permission');

      meta.callee = { answer: 'accept', ringMs: 100 };
      await replies(user, 'accept');
      const connect = await waitFor(async () => connectsTo(user)[0], 15_000, 'the call once permitted');
      const far = await waitFor(async () => [...meta.calls.values()].find((c) => c.tracking === res.body.id), 5000, 'the call at Meta');
      assert.equal(connect.body.biz_opaque_callback_data, res.body.id);
      await waitFor(async () => far.peer.packetsOf('audio/opus').length >= 10, 10_000, 'the prompt');
      await far.peer.pressKey('1', 200);
      const done = await finished(res.body.id);
      assert.equal(done.status, 4, JSON.stringify(done));
      assert.equal(done.pressedDigit, '1');
      assert.equal(done.awaitingPermission, false);

      const consent = await consentOf(user);
      assert.equal(consent.status, 'Granted');
      assert.equal(consent.permanent, false);
      assert.ok(Date.parse(consent.expiresAt) > Date.now() + 6 * 86_400_000, consent.expiresAt);

      // Granted now: the next call goes at once, without asking again.
      const again = await createIvr(user);
      assert.equal(again.body.awaitingPermission, false);
      await waitFor(async () => connectsTo(user).length === 2, 15_000, 'the second call placed directly');
      await fx.a.api.post(`/v1/outbound-ivr/${again.body.id}/cancel`, {});
    });

    it('the user declines: Failed, result 9 PermissionDenied, no call; asking again the same day is a 429 (Meta allows 1 request a day)', async () => {
      const user = '966500000002';
      await userWrites(user);
      const res = await createIvr(user);
      await permissionRequestTo(user);
      await replies(user, 'reject');
      const done = await finished(res.body.id);
      assert.equal(done.status, 7);
      assert.equal(done.result, 9);
      assert.equal(done.hangupCause, 'PermissionDenied');
      assert.equal(done.awaitingPermission, false);
      assert.equal(connectsTo(user).length, 0);
      const outcome = await waitFor(async () => fx.receiver.at(`/ivr/${user}`)[0], 10_000, 'the outcome webhook');
      const payload = verifySignature(outcome, fx.a.webhookSecret) as Record<string, unknown>;
      assert.equal(payload.result, 9);
      assert.equal((await consentOf(user)).status, 'Denied');

      const count = (await fx.a.api.get('/v1/outbound-ivr')).body.totalCount;
      const again = await createIvr(user);
      assert.equal(again.status, 429, again.text);
      assert.equal(again.body.error.code, 'OutboundIvr:CallPermissionRequestLimit');
      assert.match(again.body.error.message, /1 a day and 2 in 7 days/);
      assert.equal((await fx.a.api.get('/v1/outbound-ivr')).body.totalCount, count, 'nothing written');
    });

    it('outside the service window without a permissionTemplate: Failed, NoPermission, saying why; no message sent', async () => {
      const user = '966500000003';
      const res = await createIvr(user);
      assert.equal(res.body.awaitingPermission, true);
      const done = await finished(res.body.id);
      assert.equal(done.status, 7);
      assert.equal(done.hangupCause, 'NoPermission');
      assert.match(
        done.errorMessage,
        /service window is closed, and neither the request nor the channel's calling settings give a permissionTemplate/,
      );
      assert.equal(fx.fake.sends.filter((r) => r.body?.to === user).length, 0);
    });

    it('a user who called the number (callback permission on) may be called back: the call is placed without asking', async () => {
      const user = '966500000004';
      // The edge reads the channel from a cache of a few seconds: the calling settings of before() are in it by now.
      await new Promise((resolve) => setTimeout(resolve, 5500));
      const call = await meta.userCalls(user);
      await waitFor(async () => call.rejected, 10_000, 'the call rejected (no flow)');
      await waitFor(async () => (await consentOf(user)).status === 'Granted', 10_000, 'the callback permission');
      meta.callee = { answer: 'reject', ringMs: 100 };
      const res = await createIvr(user);
      assert.equal(res.body.awaitingPermission, false);
      await waitFor(async () => connectsTo(user)[0], 15_000, 'the call placed at once');
      assert.equal(fx.fake.sends.filter((r) => r.body?.to === user).length, 0, 'no permission request');
      await finished(res.body.id);
    });

    it('the same request again (its externalId) answers the first record and asks nothing more: no 429', async () => {
      const user = '966500000006';
      const first = await createIvr(user, { externalId: `permission-${user}` });
      assert.equal(first.status, 200, first.text);
      const again = await createIvr(user, { externalId: `permission-${user}` });
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.id, first.body.id);
    });

    it('bad permission fields are a 400 naming them, and nothing is written', async () => {
      const count = (await fx.a.api.get('/v1/outbound-ivr')).body.totalCount;
      for (const [extra, member] of [
        [{ permissionTimeoutMinutes: 0 }, 'permissionTimeoutMinutes'],
        [{ permissionTimeoutMinutes: 20_000 }, 'permissionTimeoutMinutes'],
        [{ permissionTemplate: { name: '', language: 'en' } }, 'permissionTemplate.name'],
        [{ permissionRequestText: ' ' }, 'permissionRequestText'],
      ] as const) {
        const res = await createIvr('966500000005', extra);
        assert.equal(res.status, 400, `${JSON.stringify(extra)}: ${res.text}`);
        assert.ok(JSON.stringify(res.body.error.validationErrors).includes(member), res.text);
      }
      assert.equal((await fx.a.api.get('/v1/outbound-ivr')).body.totalCount, count);
    });

    it('no answer within permissionTimeoutMinutes: Failed, NoPermission, and no call', async () => {
      await permissionRequestTo('966500000009');
      const done = await finished(unanswered.id, Math.max(5000, unanswered.createdAt + 75_000 - Date.now()));
      assert.ok(Date.now() - unanswered.createdAt >= 59_000, 'not before the deadline');
      assert.equal(done.status, 7);
      assert.equal(done.hangupCause, 'NoPermission');
      assert.match(done.errorMessage, /did not answer the call permission request in time/);
      assert.equal(connectsTo('966500000009').length, 0);
    });
  },
);
