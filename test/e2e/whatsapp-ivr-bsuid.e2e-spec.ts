import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { pcmFromWav } from '../../src/voice/webrtc/pcm-audio.js';
import { describeWithApp } from '../support/describe-with-app.js';
import { callPermissionReply } from '../support/call-permission.js';
import { inbound } from '../support/cloud-notifications.js';
import { FakeCloudApi } from '../support/fake-cloud-api.js';
import { FakeMetaCalls, type FakeCall } from '../support/fake-meta-calls.js';
import { waitFor } from '../support/fixtures.js';
import { uploadFile } from '../support/media-fixtures.js';
import { correlation, decode, envelope, promptWav, RATE } from '../support/prompt-audio.js';
import { verifySignature, WebhookReceiver } from '../support/webhook-receiver.js';

const TOKEN = 'EAAG-ivr-bsuid-token';
const APP_SECRET = 'ivr-bsuid-app-secret';
const PHONE_NUMBER_ID = '3098774';
/** WhatsApp users with a username who share no number with the business: Meta names them by their BSUID only (2026). */
const CALLER = 'US.13491208655302741918';
/** As long as Meta's BSUIDs get (128 characters after the country): the permission is kept under it. */
const NEWCOMER = `GB.${'8877665544332211'.repeat(8)}`;

type Payload = Record<string, any>;

/**
 * WhatsApp users known only by their business-scoped user id (BSUID, API.md §7.1 and §15): a call
 * from one (Meta's `connect` names the caller by `from_user_id` alone) is answered and run through
 * the inbound flow, its record and Call Webhook naming the BSUID and its contact; Create Outbound
 * IVR takes the BSUID as `destinationNumber` (longer than a number) and calls it with Graph's
 * `recipient`; a user without permission is asked at the BSUID, and their reply places the call.
 */
describeWithApp(
  'WhatsApp IVR calls to and from users known only by their BSUID',
  {
    peers: { fake: () => FakeCloudApi.start({ acceptedTokens: [TOKEN] }), receiver: () => WebhookReceiver.start() },
    env: ({ fake }) => ({
      WHATSAPP_GRAPH_URL: fake.url,
      WHATSAPP_CALL_HOST_ADDRESSES: '127.0.0.1',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      RATE_LIMIT_REQUESTS_PER_MINUTE: '100000',
    }),
    workspaces: 1,
  },
  (fx) => {
    let channelId: string;
    let webhookUrl: string;
    let meta: FakeMetaCalls;
    let promptUrl: string;
    let callerContactId: string;
    const callWebhookPath = '/bsuid-calls';

    before(async () => {
      const created = await fx.t.admin.post(`/admin/v1/workspaces/${fx.a.workspaceId}/channels`, {
        name: 'WhatsApp line',
        type: 2,
        phoneNumber: '+14155550914',
        whatsApp: {
          provider: 'cloud-api',
          phoneNumberId: PHONE_NUMBER_ID,
          wabaId: '564',
          accessToken: TOKEN,
          appSecret: APP_SECRET,
          verifyToken: 'v',
        },
        postCallWebhookUrl: fx.receiver.url(callWebhookPath),
      });
      assert.equal(created.status, 200, created.text);
      channelId = created.body.id;
      webhookUrl = `${fx.t.baseUrl}/v1/whatsapp/webhooks/${channelId}`;
      meta = new FakeMetaCalls(webhookUrl, APP_SECRET, PHONE_NUMBER_ID);
      fx.fake.calls = meta;
      const uploaded = await uploadFile(fx.t.baseUrl, '/v1/support/upload-audio', fx.a.token, 'audioFile', {
        bytes: promptWav(),
        name: 'question.wav',
        type: 'audio/wav',
      });
      assert.equal(uploaded.status, 200, JSON.stringify(uploaded.body));
      promptUrl = uploaded.body.url;
      const flow = await fx.a.api.post('/v1/outbound-ivr-flows', {
        name: 'Reception',
        startStepId: 'ask',
        steps: [
          {
            id: 'ask',
            type: 'Question',
            props: {
              audioFileUrl: promptUrl,
              options: [
                { digit: '1', description: 'Sales', nextStepId: 'bye' },
                { digit: '2', description: 'Support', nextStepId: 'bye' },
              ],
              maxAudioRetries: 0,
              inputTimeoutMs: 8000,
            },
          },
          { id: 'bye', type: 'Hangup', props: {} },
        ],
      });
      assert.equal(flow.status, 200, flow.text);
      // Callback permission on: a user who calls gives the business 7 days to call them back.
      const calling = await fx.a.api.request('PUT', `/v1/channels/${channelId}/calling`, {
        json: { enabled: true, inboundFlowId: flow.body.id, callbackPermission: true },
      });
      assert.equal(calling.status, 200, calling.text);
      // The edge reads the channel from a cache of a few seconds: wait until it knows the inbound flow.
      await new Promise((resolve) => setTimeout(resolve, 5500));
    });

    /** The whole prompt reached the far end, decoded: as long as it and loud where it is. */
    const heardThePrompt = async (far: FakeCall) => {
      const prompt = pcmFromWav(promptWav()).samples;
      const packets = Math.ceil(prompt.length / (RATE / 50));
      await waitFor(async () => far.peer.packetsOf('audio/opus').length >= packets, 15_000, 'the question at the far end');
      const heard = decode(
        far.peer
          .packetsOf('audio/opus')
          .slice(0, packets)
          .map((p) => p.payload),
      );
      assert.ok(Math.abs(heard.length - prompt.length) <= RATE / 25, `decoded ${heard.length} samples of ${prompt.length}`);
      assert.ok(correlation(envelope(heard), envelope(prompt)) > 0.85, 'the question as it was recorded');
    };

    const recordOfCall = (callId: string) =>
      waitFor(
        async () => {
          const list = await fx.a.api.get('/v1/outbound-ivr?MaxResultCount=100');
          const record = (list.body.items as Payload[]).find((r) => r.callId === callId);
          return record && record.status >= 4 ? record : null;
        },
        20_000,
        `the record of call ${callId}`,
      );

    const callHookOf = async (callId: string) =>
      verifySignature(
        await waitFor(
          async () =>
            fx.receiver.at(callWebhookPath).find((d) => (verifySignature(d, fx.a.webhookSecret) as { callId: string }).callId === callId),
          15_000,
          `the Call Webhook of ${callId}`,
        ),
        fx.a.webhookSecret,
      ) as Payload;

    const callActions = (action: string) =>
      fx.fake.requests.filter((r) => r.path === `/v25.0/${PHONE_NUMBER_ID}/calls` && r.body?.action === action);

    it("a call from a user known only by their BSUID (no `from`, only `from_user_id`): answered, the flow's question heard, the key recorded; the record, contact and Call Webhook name the BSUID", async () => {
      const call = await meta.userCalls(CALLER);
      await waitFor(async () => call.actions.length === 2, 10_000, 'pre_accept and accept');
      assert.deepEqual(call.actions, ['pre_accept', 'accept']);
      assert.equal(callActions('reject').filter((r) => r.body.call_id === call.id).length, 0, 'not rejected');
      await heardThePrompt(call);
      await call.peer.pressKey('2', 200);

      const record = await recordOfCall(call.id);
      assert.equal(record.status, 4, JSON.stringify(record));
      assert.equal(record.direction, 1);
      assert.equal(record.destinationNumber, CALLER, 'the caller is their BSUID');
      assert.deepEqual(
        record.answers.map((a: Payload) => [a.stepId, a.digit, a.description]),
        [['ask', '2', 'Support']],
      );
      await waitFor(async () => call.terminatedBy, 5000, 'the call ended at Meta');

      const hook = await callHookOf(call.id);
      assert.equal(hook.type, 1);
      assert.equal(hook.status, 1);
      assert.equal(hook.channelKind, 'WhatsApp');
      assert.equal(hook.callerNumber, CALLER);
      assert.equal(hook.contactNumber, CALLER);
      const contact = (await fx.a.api.get(`/v1/contacts/${hook.contactId}`)).body;
      assert.equal(contact.whatsAppUserId, CALLER, 'the contact is the BSUID user');
      assert.equal(contact.phoneNumber, null);
      callerContactId = contact.id;
      // Calling in with callback permission on gave the business 7 days to call back.
      const consent = await fx.a.api.get(`/v1/contacts/${callerContactId}/consent`);
      assert.equal(consent.body.whatsAppCalls.status, 'Granted', JSON.stringify(consent.body));
      assert.equal(consent.body.whatsAppCalls.permanent, false);
      await call.peer.close();
    });

    it('a call to that user by BSUID: destinationNumber keeps the BSUID, Graph is asked with `recipient`, the prompt is heard and the key answers; both webhooks name the BSUID', async () => {
      const outcomePath = '/ivr/bsuid';
      const createIvr = () =>
        fx.a.api.post('/v1/outbound-ivr', {
          channelId,
          destinationNumber: CALLER,
          audioFileUrl: promptUrl,
          options: [
            { digit: '1', description: 'Confirm' },
            { digit: '2', description: 'Cancel' },
          ],
          webhookUrl: fx.receiver.url(outcomePath),
          maxAudioRetries: 0,
          inputTimeoutMs: 8000,
        });
      // A user opted out of calls is not called, BSUID or not.
      assert.equal((await fx.a.api.put(`/v1/contacts/${callerContactId}/consent`, { calls: { status: 'OptedOut' } })).status, 200);
      const refused = await createIvr();
      assert.equal(refused.status, 400, refused.text);
      assert.equal(refused.body.error.code, 'OutboundIvr:RecipientOptedOut');
      assert.equal((await fx.a.api.put(`/v1/contacts/${callerContactId}/consent`, { calls: { status: 'OptedIn' } })).status, 200);

      meta.callee = { answer: 'accept', ringMs: 100 };
      const created = await createIvr();
      assert.equal(created.status, 200, created.text);
      assert.equal(created.body.destinationNumber, CALLER);
      assert.equal(created.body.awaitingPermission, false, 'the callback permission holds');
      const id = created.body.id as string;

      const connect = await waitFor(
        async () => callActions('connect').find((r) => r.body.biz_opaque_callback_data === id),
        10_000,
        'connect',
      );
      assert.equal(connect.body.recipient, CALLER, 'a user who shares no number is called by BSUID');
      assert.equal(connect.body.to, undefined);
      const far = await waitFor(async () => [...meta.calls.values()].find((c) => c.tracking === id), 5000, 'the fake call');
      await heardThePrompt(far);
      await far.peer.pressKey('1', 200);
      const record = await recordOfCall(far.id);
      assert.equal(record.status, 4, JSON.stringify(record));
      assert.equal(record.pressedDigit, '1');
      assert.equal(record.destinationNumber, CALLER);

      const outcome = verifySignature(
        await waitFor(async () => fx.receiver.at(outcomePath)[0], 10_000, 'the outcome webhook'),
        fx.a.webhookSecret,
      ) as Payload;
      assert.equal(outcome.destinationNumber, CALLER);
      assert.equal(outcome.pressedDigit, '1');
      const hook = await callHookOf(far.id);
      assert.equal(hook.type, 2);
      assert.equal(hook.calleeNumber, CALLER);
      assert.equal(hook.contactId, callerContactId, 'the same contact as their own call');
    });

    it('a BSUID user without permission: the permission request goes to the BSUID (`recipient`), their reply (`from_user_id` only) places the call', async () => {
      // The user writes first (BSUID only): their contact exists and the service window is open.
      const hello = inbound({ userId: NEWCOMER, name: 'Bea' }, `wamid.hello.${Date.now()}`, {
        type: 'text',
        text: { body: 'Hi' },
      }) as Payload;
      hello.entry[0].changes[0].value.metadata.phone_number_id = PHONE_NUMBER_ID;
      assert.equal(await FakeCloudApi.notify(webhookUrl, APP_SECRET, hello), 200);
      const contact = await waitFor(
        async () => {
          const found = await fx.a.api.post('/v1/contacts/search', { whatsAppUserId: NEWCOMER });
          return (found.body.items as Payload[] | undefined)?.[0];
        },
        10_000,
        "the newcomer's contact",
      );

      const outcomePath = '/ivr/newcomer';
      const created = await fx.a.api.post('/v1/outbound-ivr', {
        channelId,
        destinationNumber: NEWCOMER,
        audioFileUrl: promptUrl,
        options: [{ digit: '1', description: 'Confirm' }],
        webhookUrl: fx.receiver.url(outcomePath),
        maxAudioRetries: 0,
        inputTimeoutMs: 8000,
      });
      assert.equal(created.status, 200, created.text);
      assert.equal(created.body.destinationNumber, NEWCOMER);
      assert.equal(created.body.awaitingPermission, true);
      const id = created.body.id as string;

      const request = await waitFor(
        async () => fx.fake.sendsToRecipient(NEWCOMER).find((r) => (r.body as Payload).interactive?.type === 'call_permission_request'),
        10_000,
        'the call permission request',
      );
      assert.equal((request.body as Payload).to, undefined, 'sent to the BSUID, not to a number');
      assert.equal(callActions('connect').filter((r) => r.body.recipient === NEWCOMER).length, 0, 'no call before the answer');

      meta.callee = { answer: 'accept', ringMs: 100 };
      const reply = callPermissionReply(PHONE_NUMBER_ID, NEWCOMER, 'accept', true, `wamid.reply.${Date.now()}`);
      assert.equal(await FakeCloudApi.notify(webhookUrl, APP_SECRET, reply), 200);
      const far = await waitFor(async () => [...meta.calls.values()].find((c) => c.tracking === id), 15_000, 'the call after the answer');
      assert.equal(far.to, NEWCOMER);
      await heardThePrompt(far);
      await far.peer.pressKey('1', 200);
      const record = await recordOfCall(far.id);
      assert.equal(record.status, 4, JSON.stringify(record));
      assert.equal(record.pressedDigit, '1');
      assert.equal(record.awaitingPermission, false);
      const consent = await fx.a.api.get(`/v1/contacts/${contact.id}/consent`);
      assert.equal(consent.body.whatsAppCalls.status, 'Granted');
      assert.equal(consent.body.whatsAppCalls.permanent, true);
      await meta.closeAll();
    });

    it("a call naming the caller's number and BSUID teaches the number's contact the BSUID, as a message does; a later call naming the BSUID alone is that contact's", async () => {
      const number = '966507770011';
      const bsuid = 'SA.6611223344556677';
      const known = await fx.a.api.post('/v1/contacts', { name: 'Known by number', phoneNumber: `+${number}` });
      assert.equal(known.status, 200, known.text);
      const contactId = known.body.id as string;

      const call = await meta.userCalls({ number, userId: bsuid });
      await heardThePrompt(call);
      await call.peer.pressKey('1', 200);
      const record = await recordOfCall(call.id);
      assert.equal(record.destinationNumber, `+${number}`, 'the caller is their number when Meta gives it');
      await waitFor(
        async () => (await fx.a.api.get(`/v1/contacts/${contactId}`)).body.whatsAppUserId === bsuid,
        10_000,
        'the contact to learn its BSUID from the call',
      );
      const history = await fx.a.api.get(`/v1/contacts/${contactId}/history?MaxResultCount=100`);
      assert.ok(
        (history.body.items as Payload[]).some((e) => e.propertyName === 'WhatsAppUserId' && e.newValue === bsuid),
        `the BSUID learnt is in the contact's history: ${history.text}`,
      );
      assert.equal((await callHookOf(call.id)).contactId, contactId);
      await call.peer.close();

      const again = await meta.userCalls(bsuid);
      await heardThePrompt(again);
      await again.peer.pressKey('2', 200);
      const second = await recordOfCall(again.id);
      assert.equal(second.destinationNumber, bsuid);
      assert.equal((await callHookOf(again.id)).contactId, contactId, 'the BSUID alone finds the contact that learnt it');
      const found = await fx.a.api.post('/v1/contacts/search', { whatsAppUserId: bsuid });
      assert.deepEqual(
        (found.body.items as Payload[]).map((c) => c.id),
        [contactId],
        'no second contact for the BSUID',
      );
      await again.peer.close();
    });
  },
);
