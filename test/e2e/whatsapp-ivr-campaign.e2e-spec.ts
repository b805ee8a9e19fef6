import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { pcmFromWav } from '../../src/voice/webrtc/pcm-audio.js';
import { describeWithApp } from '../support/describe-with-app.js';
import { FakeCloudApi } from '../support/fake-cloud-api.js';
import { callPermissionReply, grantCallPermission } from '../support/call-permission.js';
import { content, inbound } from '../support/cloud-notifications.js';
import { FakeMetaCalls, type FakeCall } from '../support/fake-meta-calls.js';
import { waitFor } from '../support/fixtures.js';
import { uploadFile } from '../support/media-fixtures.js';
import { correlation, decode, envelope, promptWav, RATE, rms } from '../support/prompt-audio.js';
import { verifySignature, WebhookReceiver } from '../support/webhook-receiver.js';

const TOKEN = 'EAAG-ivr-campaign-token';
const APP_SECRET = 'ivr-campaign-app-secret';
const PHONE_NUMBER_ID = '3098771';
/** Three WhatsApp users who gave the number permission to call them, and the key each presses. */
const USERS = [
  { number: '966501230001', key: '1' },
  { number: '966501230002', key: '2' },
  { number: '966501230003', key: null },
];

type Payload = Record<string, any>;

/**
 * An IVR campaign (API.md §13) on a WhatsApp channel with calling enabled (API.md §15): every
 * recipient's call runs over WhatsApp (Graph `connect`, a real WebRTC peer as Meta), the prompt's
 * audio arrives at each user, the keys they press are the answers, the campaign's report counts
 * them, and each call's outcome webhook and Call Webhook go out.
 */
describeWithApp(
  'An IVR campaign on a WhatsApp channel: each call over WhatsApp, its prompt heard, its key counted',
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
    let meta: FakeMetaCalls;
    let promptUrl: string;
    let webhookUrl: string;
    const contactOf = new Map<string, string>();
    const callWebhookPath = '/whatsapp-campaign-calls';

    before(async () => {
      const created = await fx.t.admin.post(`/admin/v1/workspaces/${fx.a.workspaceId}/channels`, {
        name: 'WhatsApp campaign line',
        type: 2,
        phoneNumber: '+14155550911',
        whatsApp: {
          provider: 'cloud-api',
          phoneNumberId: PHONE_NUMBER_ID,
          wabaId: '561',
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
      meta.callee = { answer: 'accept', ringMs: 150 };
      const calling = await fx.a.api.request('PUT', `/v1/channels/${channelId}/calling`, { json: { enabled: true } });
      assert.equal(calling.status, 200, calling.text);
      for (const user of USERS) {
        await grantCallPermission(
          fx.a.api,
          { id: channelId, webhookUrl, appSecret: APP_SECRET, phoneNumberId: PHONE_NUMBER_ID },
          user.number,
        );
        const conversation = await fx.a.api.post('/v2/conversations/service-account/create', { channelId, phoneNumber: `+${user.number}` });
        contactOf.set(user.number, conversation.body.conversation.contactId);
      }
      const uploaded = await uploadFile(fx.t.baseUrl, '/v1/support/upload-audio', fx.a.token, 'audioFile', {
        bytes: promptWav(),
        name: 'question.wav',
        type: 'audio/wav',
      });
      assert.equal(uploaded.status, 200, JSON.stringify(uploaded.body));
      promptUrl = uploaded.body.url;
    });

    const campaignOf = async (id: string) => (await fx.a.api.get(`/v1/campaigns/${id}`)).body as Payload;
    const notify = async (notification: unknown) => assert.equal(await FakeCloudApi.notify(webhookUrl, APP_SECRET, notification), 200);
    /** The whole prompt has reached the far end (as many Opus packets as it lasts in 20 ms frames). */
    const promptHeard = (far: FakeCall, what: string) =>
      waitFor(
        async () => far.peer.packetsOf('audio/opus').length >= Math.ceil(pcmFromWav(promptWav()).samples.length / (RATE / 50)),
        20_000,
        `the prompt at ${what}`,
      );

    /** Creates an IVR campaign on the channel asking the uploaded question (1 Confirm, 2 Cancel) of `contactIds`, and starts it. */
    const startIvrCampaign = async (name: string, outcomePath: string, inputTimeoutMs: number, contactIds: string[]) => {
      const created = await fx.a.api.post('/v1/campaigns', {
        name,
        channelId,
        kind: 'OutboundIvr',
        ivr: {
          audioFileUrl: promptUrl,
          options: [
            { digit: '1', description: 'Confirm' },
            { digit: '2', description: 'Cancel' },
          ],
          webhookUrl: fx.receiver.url(outcomePath),
          maxAudioRetries: 0,
          inputTimeoutMs,
        },
        audience: { contactIds },
      });
      assert.equal(created.status, 200, created.text);
      const campaignId = created.body.id as string;
      const started = await fx.a.api.post(`/v1/campaigns/${campaignId}/start`, {});
      assert.equal(started.status, 200, started.text);
      return { campaignId, started };
    };

    it('calls each recipient over WhatsApp: the prompt reaches each user, their keys are the answers, the report counts them, one outcome webhook per call', async () => {
      const outcomePath = '/ivr/campaign';
      const { campaignId, started } = await startIvrCampaign(
        'WhatsApp confirmations',
        outcomePath,
        2000,
        USERS.map((u) => contactOf.get(u.number)!),
      );
      assert.equal(started.body.counts.total, USERS.length);

      // Each recipient is called over WhatsApp (Meta's `connect` to the user's number), once.
      const fars = new Map<string, FakeCall>();
      for (const user of USERS)
        fars.set(
          user.number,
          await waitFor(
            async () => [...meta.calls.values()].find((c) => c.to === user.number),
            30_000,
            `the WhatsApp call to ${user.number}`,
          ),
        );
      const connects = fx.fake.requests.filter((r) => r.path === `/v25.0/${PHONE_NUMBER_ID}/calls` && r.body?.action === 'connect');
      assert.deepEqual(connects.map((r) => r.body.to).sort(), USERS.map((u) => u.number).sort(), 'one connect per recipient');

      // The whole prompt reaches each user (decoded: its length, its loudness, where it is loud), then they answer.
      const prompt = pcmFromWav(promptWav());
      const expected = Math.ceil(prompt.samples.length / (RATE / 50));
      await Promise.all(
        USERS.map(async (user) => {
          const far = fars.get(user.number)!;
          await waitFor(async () => far.peer.packetsOf('audio/opus').length >= expected, 20_000, `the prompt at ${user.number}`);
          const heard = decode(
            far.peer
              .packetsOf('audio/opus')
              .slice(0, expected)
              .map((p) => p.payload),
          );
          const heardMs = (heard.length / RATE) * 1000;
          const promptMs = (prompt.samples.length / RATE) * 1000;
          assert.ok(Math.abs(heardMs - promptMs) <= 40, `${user.number} heard ${heardMs} ms of a ${promptMs} ms prompt`);
          const energy = rms(heard) / rms(prompt.samples);
          assert.ok(energy > 0.7 && energy < 1.3, `${user.number}: decoded RMS / prompt RMS = ${energy.toFixed(3)}`);
          assert.ok(correlation(envelope(heard), envelope(prompt.samples)) > 0.85, `${user.number} heard the prompt`);
          if (user.key) await far.peer.pressKey(user.key, 200);
        }),
      );

      const done = await waitFor(
        async () => {
          const campaign = await campaignOf(campaignId);
          return campaign.status === 'Completed' ? campaign : null;
        },
        40_000,
        'the campaign to complete',
      );
      assert.equal(done.counts.total, 3);
      assert.equal(done.counts.sent, 3, 'three calls placed');
      assert.equal(done.counts.answered, 3, 'all three answered');
      assert.equal(done.counts.digitPressed, 2, 'two keys pressed');
      assert.equal(done.counts.failed, 0);

      const recipients = (await fx.a.api.get(`/v1/campaigns/${campaignId}/recipients?MaxResultCount=100`)).body.items as Payload[];
      const calls = (await fx.a.api.get('/v1/outbound-ivr?MaxResultCount=100')).body.items as Payload[];
      for (const user of USERS) {
        const recipient = recipients.find((r) => r.contactId === contactOf.get(user.number))!;
        assert.equal(recipient.status, 'Completed', JSON.stringify(recipient));
        const call = calls.find((c) => c.id === recipient.outboundIvrId)!;
        assert.equal(call.callId, fars.get(user.number)!.id, 'the record is the WhatsApp call');
        assert.equal(call.destinationNumber, `+${user.number}`);
        assert.equal(call.status, 4);
        assert.equal(call.pressedDigit, user.key);
        assert.equal(call.result, user.key ? 1 : 2, user.key ? 'DigitPressed' : 'NoInput');
        if (user.key) assert.equal(call.answers[0].description, user.key === '1' ? 'Confirm' : 'Cancel');
        assert.equal(fars.get(user.number)!.terminatedBy, 'business', 'the worker hung up when the dialog ended');
      }

      // One outcome webhook per call, signed, with the call's answer; one Call Webhook per call, from WhatsApp.
      const outcomes = await waitFor(
        async () => (fx.receiver.at(outcomePath).length >= USERS.length ? fx.receiver.at(outcomePath) : null),
        15_000,
        'the outcome webhooks',
      );
      const payloads = outcomes.map((d) => verifySignature(d, fx.a.webhookSecret) as Payload);
      assert.equal(new Set(payloads.map((p) => p.id)).size, USERS.length, 'one outcome webhook per call');
      for (const user of USERS) {
        const payload = payloads.find((p) => p.destinationNumber === `+${user.number}`)!;
        assert.equal(payload.status, 4);
        assert.equal(payload.pressedDigit, user.key);
        assert.equal(payload.callId, fars.get(user.number)!.id);
      }
      const callHooks = await waitFor(
        async () => (fx.receiver.at(callWebhookPath).length >= USERS.length ? fx.receiver.at(callWebhookPath) : null),
        15_000,
        'the Call Webhooks',
      );
      const callPayloads = callHooks.map((d) => verifySignature(d, fx.a.webhookSecret) as Payload);
      assert.deepEqual(callPayloads.map((p) => p.callId).sort(), USERS.map((u) => fars.get(u.number)!.id).sort());
      for (const payload of callPayloads) {
        assert.equal(payload.channelKind, 'WhatsApp');
        assert.equal(payload.type, 2);
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
      assert.equal(fx.receiver.at(outcomePath).length, USERS.length, 'no outcome webhook twice');
      await meta.closeAll();
    });

    it('contacts known only by their BSUID are called by it over WhatsApp, under the rules numbered ones have: one opted out of calls is skipped, one without permission is asked first', async () => {
      const granted = 'SA.7700112233445501';
      const optedOut = 'SA.7700112233445502';
      const asked = 'SA.7700112233445503';
      // Two users give the number permission for good (their replies, BSUID only, make their contacts); the third writes first.
      for (const user of [granted, optedOut])
        await notify(callPermissionReply(PHONE_NUMBER_ID, user, 'accept', true, `wamid.permission.${user}`));
      const hello = inbound({ userId: asked, name: 'Asked' }, `wamid.hello.${asked}`, content.text('Hi')) as Payload;
      hello.entry[0].changes[0].value.metadata.phone_number_id = PHONE_NUMBER_ID;
      await notify(hello);
      const idOf = new Map<string, string>();
      for (const user of [granted, optedOut, asked]) {
        const contact = await waitFor(
          async () => {
            const found = ((await fx.a.api.post('/v1/contacts/search', { whatsAppUserId: user })).body.items as Payload[] | undefined)?.[0];
            if (!found || user === asked) return found;
            const consent = await fx.a.api.get(`/v1/contacts/${found.id}/consent`);
            return consent.body.whatsAppCalls?.status === 'Granted' ? found : undefined;
          },
          15_000,
          `the contact of ${user}`,
        );
        assert.equal(contact.phoneNumber, null, `${user} shares no number`);
        idOf.set(user, contact.id as string);
      }
      const dnc = await fx.a.api.put(`/v1/contacts/${idOf.get(optedOut)}/consent`, { calls: { status: 'OptedOut' } });
      assert.equal(dnc.status, 200, dnc.text);

      const outcomePath = '/ivr/bsuid-campaign';
      const { campaignId, started } = await startIvrCampaign(
        'WhatsApp users without numbers',
        outcomePath,
        4000,
        [granted, optedOut, asked].map((u) => idOf.get(u)!),
      );
      assert.equal(started.body.counts.total, 3);
      assert.equal(started.body.counts.skippedNoPhone, 0, 'a WhatsApp call needs no number');

      // With permission: called at once, by BSUID (Graph's `recipient`), and answers.
      const first = await waitFor(async () => [...meta.calls.values()].find((c) => c.to === granted), 30_000, `the call to ${granted}`);
      const connect = fx.fake.requests.find(
        (r) => r.path === `/v25.0/${PHONE_NUMBER_ID}/calls` && r.body?.action === 'connect' && r.body?.recipient === granted,
      )!;
      assert.equal(connect.body.to, undefined, 'called by BSUID, not by a number');
      await promptHeard(first, granted);
      await first.peer.pressKey('1', 200);

      // Without permission: asked at the BSUID first, called once they accept.
      const request = await waitFor(
        async () => fx.fake.sendsToRecipient(asked).find((r) => (r.body as Payload).interactive?.type === 'call_permission_request'),
        15_000,
        `the call permission request to ${asked}`,
      );
      assert.equal((request.body as Payload).to, undefined);
      assert.equal([...meta.calls.values()].filter((c) => c.to === asked).length, 0, 'no call before the answer');
      await notify(callPermissionReply(PHONE_NUMBER_ID, asked, 'accept', false, `wamid.reply.${asked}`));
      const second = await waitFor(async () => [...meta.calls.values()].find((c) => c.to === asked), 15_000, `the call to ${asked}`);
      await promptHeard(second, asked);
      await second.peer.pressKey('2', 200);

      const done = await waitFor(
        async () => {
          const campaign = await campaignOf(campaignId);
          return campaign.status === 'Completed' ? campaign : null;
        },
        40_000,
        'the campaign to complete',
      );
      assert.equal(done.counts.total, 3);
      assert.equal(done.counts.sent, 2);
      assert.equal(done.counts.answered, 2);
      assert.equal(done.counts.digitPressed, 2);
      assert.equal(done.counts.skippedOptedOut, 1);
      assert.equal(done.counts.skippedNoPhone, 0);
      assert.equal([...meta.calls.values()].filter((c) => c.to === optedOut).length, 0, 'no call to the user opted out of calls');

      const recipients = (await fx.a.api.get(`/v1/campaigns/${campaignId}/recipients?MaxResultCount=100`)).body.items as Payload[];
      const calls = (await fx.a.api.get('/v1/outbound-ivr?MaxResultCount=100')).body.items as Payload[];
      const shown = (user: string) => recipients.find((r) => r.contactId === idOf.get(user))!;
      assert.equal(shown(optedOut).status, 'SkippedOptedOut');
      for (const [user, far, key] of [
        [granted, first, '1'],
        [asked, second, '2'],
      ] as const) {
        const recipient = shown(user);
        assert.equal(recipient.status, 'Completed', JSON.stringify(recipient));
        assert.equal(recipient.phoneNumber, null);
        assert.equal(recipient.whatsAppUserId, user);
        const call = calls.find((c) => c.id === recipient.outboundIvrId)!;
        assert.equal(call.destinationNumber, user, 'the call names the BSUID');
        assert.equal(call.callId, far.id);
        assert.equal(call.pressedDigit, key);
      }
      await meta.closeAll();
    });
  },
);
