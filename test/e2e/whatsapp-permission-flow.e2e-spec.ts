import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { inbound, PHONE_NUMBER_ID, status } from '../support/cloud-notifications.js';
import { callPermissionReply, grantCallPermission } from '../support/call-permission.js';
import { describeWithApp } from '../support/describe-with-app.js';
import { FakeCloudApi } from '../support/fake-cloud-api.js';
import { FakeMetaCalls } from '../support/fake-meta-calls.js';
import { waitFor } from '../support/fixtures.js';
import { uploadFile } from '../support/media-fixtures.js';
import { promptWav } from '../support/prompt-audio.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const TOKEN = 'EAAG-permission-flow-token';
/** An approved template with a call permission request component, as Meta lists it. */
const CALL_TEMPLATE = {
  name: 'may_we_call',
  language: 'en_US',
  category: 'UTILITY',
  status: 'APPROVED',
  components: [{ type: 'BODY', text: 'May we call you about your order?' }, { type: 'CALL_PERMISSION_REQUEST' }],
};
const APP_SECRET = 'permission-flow-app-secret';

/**
 * The call permission flow under load and faults (API.md §15): a repeated request answers its first
 * record whatever limit was reached since; requests for one user at once send one permission
 * request, and a request while one is out joins it; a refused request makes no contact; a
 * permission request that could not be sent does not count against Meta's limits on asking; a
 * user's answer is applied after its message is recorded, never holding it up; the reads each
 * request makes use indexes; outside the service window the channel's permission template asks
 * when the request names none; Meta refusing a call for want of permission drops the recorded one.
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
    let seq = 0;
    const db = () => fx.t.app.get(DataSource);

    const notify = async (notification: unknown) => assert.equal(await FakeCloudApi.notify(webhookUrl, APP_SECRET, notification), 200);

    /** The contact of a number, or null (the timeline's create would make one: searched instead). */
    const contactOf = async (user: string) => {
      const rows = await db().query<Array<{ id: string }>>('SELECT id FROM contacts WHERE workspace_id = $1 AND phone_number = $2', [
        fx.a.workspaceId,
        `+${user}`,
      ]);
      return rows[0]?.id ?? null;
    };

    /** The inbound messages of a number's conversations on the channel. */
    const inboundOf = async (user: string) => {
      const contactId = await contactOf(user);
      if (!contactId) return [];
      return db().query<Array<{ body: string }>>(
        `SELECT e.body FROM conversation_events e JOIN conversations c ON c.id = e.conversation_id
          WHERE c.workspace_id = $1 AND c.contact_id = $2 AND e.direction = 1 ORDER BY e.creation_time`,
        [fx.a.workspaceId, contactId],
      );
    };

    /** The user writes first: the 24 h service window opens. */
    const userWrites = async (user: string) => {
      const before = (await inboundOf(user)).length;
      await notify(inbound({ phone: user, name: 'Customer' }, `wamid.in.${user}.${++seq}`, { type: 'text', text: { body: 'Hi' } }));
      await waitFor(async () => (await inboundOf(user)).length > before, 15_000, `the message of ${user}`);
    };

    const replies = (user: string, response: 'accept' | 'reject', id = `wamid.reply.${user}.${++seq}`) =>
      notify(callPermissionReply(PHONE_NUMBER_ID, user, response, false, id));

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
    const permissionRequestsTo = (user: string) =>
      fx.fake.sends.filter((r) => r.body?.to === user && r.body?.interactive?.type === 'call_permission_request');
    const permissionRequestTo = (user: string) =>
      waitFor(async () => permissionRequestsTo(user)[0], 15_000, `the call permission request to ${user}`);
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const connectsTo = (user: string) =>
      fx.fake.requests.filter((r) => r.path === `/v25.0/${PHONE_NUMBER_ID}/calls` && r.body?.action === 'connect' && r.body?.to === user);

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

    it('five requests at once for a user without permission send one permission request; all five wait, and all are placed when the user accepts', async () => {
      const user = '966510000002';
      await userWrites(user);
      const created = await Promise.all([1, 2, 3, 4, 5].map(() => createIvr(user)));
      for (const res of created) {
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.awaitingPermission, true);
      }
      await permissionRequestTo(user);
      await sleep(1000);
      assert.equal(permissionRequestsTo(user).length, 1, 'one request for all five');
      meta.callee = { answer: 'reject', ringMs: 100 };
      await replies(user, 'accept');
      await waitFor(async () => connectsTo(user).length === 5, 20_000, 'the five calls placed');
      for (const res of created) assert.equal((await finished(res.body.id)).awaitingPermission, false);
    });

    it('a request while one is out joins it: it waits with its own deadline, nothing more is sent, and the answer places both', async () => {
      const user = '966510000003';
      await userWrites(user);
      const first = await createIvr(user);
      assert.equal(first.status, 200, first.text);
      await permissionRequestTo(user);
      const second = await createIvr(user, { permissionTimeoutMinutes: 5 });
      assert.equal(second.status, 200, second.text);
      assert.equal(second.body.status, 0);
      assert.equal(second.body.awaitingPermission, true);
      const deadline = Date.parse(second.body.permissionDeadline);
      assert.ok(deadline > Date.now() + 4 * 60_000 && deadline < Date.parse(first.body.permissionDeadline), second.body.permissionDeadline);
      await sleep(1000);
      assert.equal(permissionRequestsTo(user).length, 1, 'the second call sends no request of its own');
      assert.equal(connectsTo(user).length, 0);
      meta.callee = { answer: 'reject', ringMs: 100 };
      await replies(user, 'accept');
      await waitFor(async () => connectsTo(user).length === 2, 15_000, 'both calls placed');
      await finished(first.body.id);
      await finished(second.body.id);
    });

    it("a request refused past Meta's limits on asking (a 429) makes no contact for the user", async () => {
      const user = '966510000004';
      await userWrites(user);
      const first = await createIvr(user);
      await permissionRequestTo(user);
      await replies(user, 'reject');
      assert.equal((await finished(first.body.id)).result, 9);
      const contactId = await contactOf(user);
      assert.ok(contactId);
      const deleted = await fx.a.api.request('DELETE', `/v1/contacts/${contactId}`);
      assert.ok(deleted.status < 300, deleted.text);
      const again = await createIvr(user);
      assert.equal(again.status, 429, again.text);
      assert.equal(again.body.error.code, 'OutboundIvr:CallPermissionRequestLimit');
      assert.equal(await contactOf(user), null, 'no contact made for a call that was not recorded');
    });

    it('a permission request that could not be sent (window closed, no template) is not counted: once the user writes, the next call asks at once', async () => {
      const user = '966510000005';
      const first = await createIvr(user);
      assert.equal(first.status, 200, first.text);
      const done = await finished(first.body.id);
      assert.equal(done.hangupCause, 'NoPermission');
      assert.match(done.errorMessage, /No call permission request could be sent/);
      await userWrites(user);
      const again = await createIvr(user);
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.awaitingPermission, true);
      await permissionRequestTo(user);
      await fx.a.api.post(`/v1/outbound-ivr/${again.body.id}/cancel`, {});
    });

    it('Meta refuses the permission request for good: it is not counted, and every call waiting for it ends NoPermission saying why', async () => {
      const user = '966510000006';
      await userWrites(user);
      fx.fake.sendLatencyMs = 1500;
      fx.fake.script.push(FakeCloudApi.error(400, 131009, '(#131009) Parameter value is not valid'));
      try {
        const first = await createIvr(user);
        const joined = await createIvr(user);
        assert.equal(joined.status, 200, joined.text);
        assert.equal(joined.body.awaitingPermission, true);
        for (const id of [first.body.id, joined.body.id]) {
          const done = await finished(id);
          assert.equal(done.status, 7);
          assert.equal(done.hangupCause, 'NoPermission');
          assert.match(done.errorMessage, /call permission request could not be sent/);
        }
      } finally {
        fx.fake.sendLatencyMs = 0;
      }
      assert.equal(permissionRequestsTo(user).length, 1);
      const again = await createIvr(user);
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.awaitingPermission, true);
      await waitFor(async () => permissionRequestsTo(user).length === 2, 15_000, 'the request sent again');
      await fx.a.api.post(`/v1/outbound-ivr/${again.body.id}/cancel`, {});
    });

    it("Meta takes the permission request (a wamid) and later reports it failed: it is given back, and the calls waiting for it end NoPermission at once, naming Meta's error, one outcome webhook each", async () => {
      const user = '966510000011';
      await userWrites(user);
      const first = await createIvr(user);
      const joined = await createIvr(user);
      for (const res of [first, joined]) {
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.awaitingPermission, true);
      }
      const request = await permissionRequestTo(user);
      assert.equal(request.answer?.status, 200, 'Meta accepted the request');
      const wamid = (request.answer.body as { messages: Array<{ id: string }> }).messages[0].id;
      await notify(status(wamid, 'sent', { recipientId: user }));
      await notify(
        status(wamid, 'failed', {
          recipientId: user,
          errors: [
            {
              code: 131026,
              title: 'Message undeliverable',
              message: 'Message undeliverable',
              error_data: { details: 'Message Undeliverable.' },
            },
          ],
        }),
      );
      // Promptly: the calls would otherwise wait out their 60-minute permission timeout.
      for (const res of [first, joined]) {
        const done = await finished(res.body.id, 15_000);
        assert.equal(done.status, 7, JSON.stringify(done));
        assert.equal(done.hangupCause, 'NoPermission');
        assert.equal(done.awaitingPermission, false);
        assert.match(done.errorMessage, /call permission request/);
        assert.match(done.errorMessage, /131026/, "Meta's error code");
        assert.match(done.errorMessage, /Message undeliverable/, "Meta's words");
      }
      const outcomes = await waitFor(
        async () => (fx.receiver.at(`/ivr/${user}`).length >= 2 ? fx.receiver.at(`/ivr/${user}`) : null),
        10_000,
        'the outcome webhooks',
      );
      await sleep(1500);
      assert.equal(fx.receiver.at(`/ivr/${user}`).length, 2, 'one outcome webhook per call, once');
      assert.deepEqual(outcomes.map((d) => (JSON.parse(d.body) as { id: string }).id).sort(), [first.body.id, joined.body.id].sort());
      // Given back: the next call asks at once (a request counted would be a 429, Meta's 1 a day).
      const again = await createIvr(user);
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.awaitingPermission, true);
      await waitFor(async () => permissionRequestsTo(user).length === 2, 15_000, 'the request sent again');
      await fx.a.api.post(`/v1/outbound-ivr/${again.body.id}/cancel`, {});
    });

    it("the user's answer is applied after its message is recorded: the message is in while the answer waits, then the call is placed; a redelivery changes nothing", async () => {
      const user = '966510000007';
      await userWrites(user);
      const call = await createIvr(user);
      await permissionRequestTo(user);
      meta.callee = { answer: 'reject', ringMs: 100 };
      const lock = new Client({ connectionString: fx.t.databaseUrl });
      await lock.connect();
      const reply = callPermissionReply(PHONE_NUMBER_ID, user, 'accept', false, `wamid.reply.${user}.locked`);
      try {
        // Another transaction holds the user's permission row: applying the answer waits for it.
        await lock.query('BEGIN');
        await lock.query(
          'SELECT 1 FROM whatsapp_call_permissions WHERE workspace_id = $1 AND channel_id = $2 AND user_number = $3 FOR UPDATE',
          [fx.a.workspaceId, channelId, `+${user}`],
        );
        const before = (await inboundOf(user)).length;
        await notify(reply);
        await waitFor(async () => (await inboundOf(user)).length > before, 10_000, 'the answer message recorded while its effect waits');
        assert.equal(connectsTo(user).length, 0);
      } finally {
        await lock.query('ROLLBACK');
        await lock.end();
      }
      await waitFor(async () => connectsTo(user).length === 1, 15_000, 'the call placed once the answer is applied');
      await finished(call.body.id);
      const messages = (await inboundOf(user)).length;
      await notify(reply);
      await sleep(1500);
      assert.equal((await inboundOf(user)).length, messages, 'the redelivered message is not recorded again');
      assert.equal(connectsTo(user).length, 1, 'and places nothing more');
    });

    it("the reads a request for a WhatsApp user makes use indexes: its connected calls today, the calls waiting for the user's permission", async () => {
      const runner = db().createQueryRunner();
      await runner.connect();
      try {
        await runner.startTransaction();
        // As on a large table: the planner takes an index that can answer the query, if there is one.
        await runner.query('SET LOCAL enable_seqscan = off');
        const plan = async (sql: string, params: unknown[]) =>
          (await runner.query(`EXPLAIN ${sql}`, params)).map((row: Record<string, string>) => row['QUERY PLAN']).join('\n');
        const pair = [fx.a.workspaceId, channelId, '+966510000009'];
        // OutboundIvrRequestsRepository.countConnectedSince
        const connected = await plan(
          `SELECT count(*)::int AS n FROM outbound_ivr_requests
            WHERE workspace_id = $1 AND channel_id = $2 AND destination_number = $3 AND answered_at > $4 AND direction = 2`,
          [...pair, new Date(Date.now() - 86_400_000)],
        );
        assert.match(connected, /ix_outbound_ivr_connected/, connected);
        // OutboundIvrRequestsRepository.hasWaitingForPermission
        const waiting = await plan(
          `SELECT 1 AS one FROM outbound_ivr_requests
            WHERE workspace_id = $1 AND channel_id = $2 AND destination_number = $3 AND awaiting_permission LIMIT 1`,
          pair,
        );
        assert.match(waiting, /ix_outbound_ivr_awaiting_permission/, waiting);
        // The waiting calls the user's answer places (TypeORM's find, the flag a parameter).
        const answered = await plan(
          `SELECT id FROM outbound_ivr_requests
            WHERE workspace_id = $1 AND channel_id = $2 AND destination_number = $3 AND awaiting_permission = $4`,
          [...pair, true],
        );
        assert.match(answered, /ix_outbound_ivr_awaiting_permission/, answered);
      } finally {
        await runner.rollbackTransaction();
        await runner.release();
      }
    });

    it("outside the service window the channel's permission template asks (its name and language at Meta); the user accepts and the call is placed", async () => {
      const user = '966510000008';
      fx.fake.templatePages = [{ data: [CALL_TEMPLATE] }];
      const synced = await fx.t.admin.post(`/admin/v1/channels/${channelId}/templates/sync`);
      assert.deepEqual(synced.body, { synced: 1 }, synced.text);
      const settings = { enabled: true, permissionTemplate: { name: CALL_TEMPLATE.name, language: CALL_TEMPLATE.language } };
      const set = await fx.a.api.request('PUT', `/v1/channels/${channelId}/calling`, { json: settings });
      assert.equal(set.status, 200, set.text);
      assert.deepEqual(set.body.permissionTemplate, settings.permissionTemplate);
      try {
        const call = await createIvr(user);
        assert.equal(call.status, 200, call.text);
        assert.equal(call.body.awaitingPermission, true);
        const sent = await waitFor(
          async () => fx.fake.sends.find((r) => r.body?.to === user && r.body?.type === 'template'),
          15_000,
          'the permission template',
        );
        assert.equal(sent.body.template.name, CALL_TEMPLATE.name);
        assert.deepEqual(sent.body.template.language, { code: CALL_TEMPLATE.language });
        assert.equal(fx.fake.sends.filter((r) => r.body?.to === user).length, 1, 'no interactive request outside the window');
        meta.callee = { answer: 'reject', ringMs: 100 };
        await replies(user, 'accept');
        await waitFor(async () => connectsTo(user).length === 1, 15_000, 'the call placed once the user accepted');
        assert.equal((await finished(call.body.id)).awaitingPermission, false);
      } finally {
        const off = await fx.a.api.request('PUT', `/v1/channels/${channelId}/calling`, { json: { enabled: true } });
        assert.equal(off.body.permissionTemplate, null);
      }
    });

    it('Meta refuses a call for want of permission (138006) although one was granted: Failed NoPermission saying so, the grant is dropped, and the next call asks again', async () => {
      const user = '966510000010';
      await grantCallPermission(fx.a.api, { id: channelId, webhookUrl, appSecret: APP_SECRET, phoneNumberId: PHONE_NUMBER_ID }, user);
      meta.connectScript.push(
        FakeCloudApi.error(400, 138006, 'Business-initiated calling is not allowed: no approved call permission request'),
      );
      const call = await createIvr(user);
      assert.equal(call.status, 200, call.text);
      assert.equal(call.body.awaitingPermission, false);
      const done = await finished(call.body.id);
      assert.equal(done.status, 7);
      assert.equal(done.hangupCause, 'NoPermission');
      assert.match(done.errorMessage, /138006/);
      assert.match(done.errorMessage, /permission recorded for this user was dropped: the next call asks them for it again/);
      const consent = await fx.a.api.get(`/v1/contacts/${await contactOf(user)}/consent`);
      assert.deepEqual(consent.body.whatsAppCalls, { status: 'Unknown', expiresAt: null, permanent: false });
      await userWrites(user);
      const again = await createIvr(user);
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.awaitingPermission, true);
      await permissionRequestTo(user);
      await fx.a.api.post(`/v1/outbound-ivr/${again.body.id}/cancel`, {});
    });
  },
);
