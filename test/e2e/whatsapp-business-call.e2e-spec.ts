import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { AppConfig } from '../../src/config/app-config.js';
import { BusinessInitiatedCall } from '../../src/voice/whatsapp-calls/business-initiated-call.js';
import { CallSignalBus } from '../../src/voice/whatsapp-calls/call-signal-bus.js';
import { CallActionRefused, type GraphNumber } from '../../src/voice/whatsapp-calls/graph-calling.js';
import { pcmFromWav } from '../../src/voice/webrtc/pcm-audio.js';
import { describeWithApp } from '../support/describe-with-app.js';
import { FakeCloudApi } from '../support/fake-cloud-api.js';
import { FakeMetaCalls } from '../support/fake-meta-calls.js';
import { waitFor } from '../support/fixtures.js';
import { correlation, decode, envelope, promptWav, RATE, rms } from '../support/prompt-audio.js';

const TOKEN = 'EAAG-calls-token';
const APP_SECRET = 'calls-app-secret';
const PHONE_NUMBER_ID = '3098765';
const USER = '966501234567';
const LOCAL = { hostAddresses: ['127.0.0.1'], onlyLocalAddresses: ['127.0.0.1'] };

/**
 * A business-initiated WhatsApp call's signalling and media through the booted app: the offer goes
 * to the fake Graph API (`/calls`, `connect`), whose real WebRTC peer answers; Meta's `calls`
 * webhooks reach the app's webhook edge, are checked and carried over Redis to the call; the prompt
 * is played as paced Opus and decoded at the far end; keys come back as RFC 4733 events.
 */
describeWithApp(
  'A business-initiated WhatsApp call: Graph /calls, the calls webhooks through the edge and Redis, Opus out, digits in',
  { peers: { fake: () => FakeCloudApi.start({ acceptedTokens: [TOKEN] }) }, env: ({ fake }) => ({ WHATSAPP_GRAPH_URL: fake.url }) },
  (fx) => {
    let number: GraphNumber;
    let bus: CallSignalBus;
    let meta: FakeMetaCalls;

    before(async () => {
      const created = await fx.t.admin.post(`/admin/v1/workspaces/${fx.a.workspaceId}/channels`, {
        name: 'Calls line',
        type: 2,
        phoneNumber: '+14155550901',
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
      meta = new FakeMetaCalls(`${fx.t.baseUrl}/v1/whatsapp/webhooks/${created.body.id}`, APP_SECRET, PHONE_NUMBER_ID);
      fx.fake.calls = meta;
      number = { graphUrl: fx.t.app.get(AppConfig).whatsapp.graphUrl, phoneNumberId: PHONE_NUMBER_ID, accessToken: TOKEN };
      bus = fx.t.app.get(CallSignalBus);
    });
    after(() => meta?.closeAll());

    it('connects, plays the prompt once ACCEPTED arrives (decoded at the far end with its duration and energy), hears the keys, and terminates', async () => {
      meta.callee = { answer: 'accept', ringMs: 300 };
      const call = await BusinessInitiatedCall.place(number, `+${USER}`, bus, { media: LOCAL, tracking: 'request-1' });
      const connect = fx.fake.requests.find((r) => r.path === `/v25.0/${PHONE_NUMBER_ID}/calls` && r.body.action === 'connect')!;
      assert.equal(connect.auth, `Bearer ${TOKEN}`);
      assert.equal(connect.body.messaging_product, 'whatsapp');
      assert.equal(connect.body.to, USER);
      assert.equal(connect.body.session.sdp_type, 'offer');
      assert.match(connect.body.session.sdp, /a=rtpmap:111 opus\/48000\/2/i);
      assert.equal(connect.body.biz_opaque_callback_data, 'request-1');
      const far = meta.calls.get(call.callId)!;

      await call.ringing;
      await call.answered;
      const prompt = pcmFromWav(promptWav());
      const playAt = Date.now();
      const report = await call.media.play(prompt);
      // From Meta posting ACCEPTED (through the edge, Redis and the media path) to the first prompt packet.
      const firstPacketAfterAccepted = playAt + report.firstPacketAfterMs - far.acceptedAt!;
      assert.ok(firstPacketAfterAccepted < 500, `first packet ${firstPacketAfterAccepted} ms after ACCEPTED was posted`);

      const expected = Math.ceil(prompt.samples.length / (RATE / 50));
      await waitFor(async () => far.peer.packetsOf('audio/opus').length >= expected, 5000, 'the prompt at the far end');
      const heard = decode(far.peer.packetsOf('audio/opus').map((p) => p.payload));
      const heardMs = (heard.length / RATE) * 1000;
      const promptMs = (prompt.samples.length / RATE) * 1000;
      assert.ok(Math.abs(heardMs - promptMs) <= 20, `decoded ${heardMs} ms of a ${promptMs} ms prompt`);
      const energy = rms(heard) / rms(prompt.samples);
      assert.ok(energy > 0.8 && energy < 1.2, `decoded RMS / prompt RMS = ${energy.toFixed(3)}`);
      assert.ok(correlation(envelope(heard), envelope(prompt.samples)) > 0.9, 'loud and silent where the prompt is');

      const keys: string[] = [];
      call.media.onKey((key) => keys.push(key));
      await far.peer.pressKey('2', 200);
      await far.peer.pressKey('#', 200);
      await waitFor(async () => keys.length >= 2, 3000, 'both keys');
      assert.deepEqual(keys, ['2', '#']);

      await call.hangUp();
      assert.equal(far.terminatedBy, 'business');
      const terminate = fx.fake.requests.find((r) => r.path.endsWith('/calls') && r.body.action === 'terminate')!;
      assert.deepEqual(terminate.body, { messaging_product: 'whatsapp', call_id: call.callId, action: 'terminate' });
      assert.equal((await call.ended).kind, 'terminated');
    });

    it('the user hangs up mid-call: the terminate webhook ends the call with its status and duration', async () => {
      meta.callee = { answer: 'accept', ringMs: 100 };
      const call = await BusinessInitiatedCall.place(number, USER, bus, { media: LOCAL, tracking: 'request-2' });
      await call.answered;
      await new Promise((resolve) => setTimeout(resolve, 1100));
      await meta.hangUp(call.callId);
      const end = await call.ended;
      assert.equal(end.kind, 'terminated');
      assert.ok(end.kind === 'terminated' && end.status === 'COMPLETED' && end.durationSeconds === 1, JSON.stringify(end));
    });

    it('a user who declines: REJECTED ends the call, never answered', async () => {
      meta.callee = { answer: 'reject', ringMs: 100 };
      const call = await BusinessInitiatedCall.place(number, USER, bus, { media: LOCAL, tracking: 'request-3' });
      assert.deepEqual(await call.ended, { kind: 'rejected' });
      await assert.rejects(call.answered);
    });

    it('a user who lets it ring: the ring timeout terminates the call as not answered', async () => {
      meta.callee = { answer: 'ignore', ringMs: 0 };
      const call = await BusinessInitiatedCall.place(number, USER, bus, { media: LOCAL, tracking: 'request-4', ringTimeoutMs: 1500 });
      await call.ringing;
      assert.deepEqual(await call.ended, { kind: 'no-answer' });
      assert.equal(meta.calls.get(call.callId)!.terminatedBy, 'business');
    });

    it("Meta's refusal of connect (138006, no call permission) is thrown with Meta's code, and the peer is closed", async () => {
      meta.connectScript.push(
        FakeCloudApi.error(400, 138006, 'Business-initiated calling is not allowed: no approved call permission request'),
      );
      await assert.rejects(BusinessInitiatedCall.place(number, USER, bus, { media: LOCAL, tracking: 'request-5' }), (err: unknown) => {
        assert.ok(err instanceof CallActionRefused);
        assert.equal(err.code, 138006);
        return true;
      });
    });
  },
);
