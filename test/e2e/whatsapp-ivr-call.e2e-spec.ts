import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { pcmFromWav } from '../../src/voice/webrtc/pcm-audio.js';
import { describeWithApp } from '../support/describe-with-app.js';
import { FakeCloudApi } from '../support/fake-cloud-api.js';
import { grantCallPermission } from '../support/call-permission.js';
import { FakeMetaCalls } from '../support/fake-meta-calls.js';
import { waitFor } from '../support/fixtures.js';
import { uploadFile } from '../support/media-fixtures.js';
import { correlation, decode, envelope, power, promptWav, RATE, rms, wavChannel } from '../support/prompt-audio.js';
import { fetchRecording } from '../support/recordings.js';
import { verifySignature, WebhookReceiver } from '../support/webhook-receiver.js';

const TOKEN = 'EAAG-ivr-calls-token';
const APP_SECRET = 'ivr-calls-app-secret';
const PHONE_NUMBER_ID = '3098766';
const USER = '966501234567';
const CONNECT_TIMEOUT_MS = 2000;
const RING_TIMEOUT_MS = 3000;

/**
 * Create Outbound IVR on a Cloud API WhatsApp channel with calling enabled (API.md §15): the worker
 * places a WhatsApp call (Graph `/calls` `connect` with its WebRTC offer), the fake Meta answers with
 * a real WebRTC peer on 127.0.0.1 and posts the signed `calls` webhooks; the phone dialog engine runs
 * the IVR over it: the prompt arrives as Opus (decoded and compared), the far end's RFC 4733 key is
 * the answer, and the record, outcome webhook, Call Webhook and timeline end as for a phone call.
 */
describeWithApp(
  'Outbound IVR over a WhatsApp call: a real WebRTC peer as Meta, the same dialog as a phone call',
  {
    peers: { fake: () => FakeCloudApi.start({ acceptedTokens: [TOKEN] }), receiver: () => WebhookReceiver.start() },
    env: ({ fake }) => ({
      WHATSAPP_GRAPH_URL: fake.url,
      WHATSAPP_CALL_HOST_ADDRESSES: '127.0.0.1',
      WHATSAPP_CALL_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
      WHATSAPP_CALL_RING_TIMEOUT_MS: String(RING_TIMEOUT_MS),
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      RATE_LIMIT_REQUESTS_PER_MINUTE: '100000',
      RATE_LIMIT_IVR_CALLS_PER_SECOND: '1000',
    }),
  },
  (fx) => {
    let channelId: string;
    let meta: FakeMetaCalls;
    let promptUrl: string;
    let callNumber = 0;
    const callWebhookPath = '/whatsapp-calls';

    before(async () => {
      const created = await fx.t.admin.post(`/admin/v1/workspaces/${fx.a.workspaceId}/channels`, {
        name: 'WhatsApp IVR line',
        type: 2,
        phoneNumber: '+14155550902',
        whatsApp: {
          provider: 'cloud-api',
          phoneNumberId: PHONE_NUMBER_ID,
          wabaId: '556',
          accessToken: TOKEN,
          appSecret: APP_SECRET,
          verifyToken: 'v',
        },
        postCallWebhookUrl: fx.receiver.url(callWebhookPath),
      });
      assert.equal(created.status, 200, created.text);
      channelId = created.body.id;
      meta = new FakeMetaCalls(`${fx.t.baseUrl}/v1/whatsapp/webhooks/${channelId}`, APP_SECRET, PHONE_NUMBER_ID);
      fx.fake.calls = meta;
      const uploaded = await uploadFile(fx.t.baseUrl, '/v1/support/upload-audio', fx.a.token, 'audioFile', {
        bytes: promptWav(),
        name: 'question.wav',
        type: 'audio/wav',
      });
      assert.equal(uploaded.status, 200, JSON.stringify(uploaded.body));
      promptUrl = uploaded.body.url;
    });

    const enableCalling = async () => {
      const res = await fx.a.api.request('PUT', `/v1/channels/${channelId}/calling`, { json: { enabled: true } });
      assert.equal(res.status, 200, res.text);
      // The user allows this number to call them (the permission flow has its own suite).
      const webhookUrl = `${fx.t.baseUrl}/v1/whatsapp/webhooks/${channelId}`;
      await grantCallPermission(fx.a.api, { id: channelId, webhookUrl, appSecret: APP_SECRET, phoneNumberId: PHONE_NUMBER_ID }, USER);
    };

    const createIvr = async (overrides: Record<string, unknown> = {}) => {
      const webhookUrl = fx.receiver.url(`/ivr/${++callNumber}`);
      const created = await fx.a.api.post('/v1/outbound-ivr', {
        channelId,
        destinationNumber: USER,
        audioFileUrl: promptUrl,
        options: [
          { digit: '1', description: 'Confirm' },
          { digit: '2', description: 'Cancel' },
        ],
        webhookUrl,
        maxAudioRetries: 0,
        inputTimeoutMs: 8000,
        ...overrides,
      });
      assert.equal(created.status, 200, created.text);
      return { id: created.body.id as string, outcomePath: new URL(webhookUrl).pathname };
    };

    const finished = (id: string, withinMs = 20_000) =>
      waitFor(
        async () => {
          const res = await fx.a.api.get(`/v1/outbound-ivr/${id}`);
          return res.body.status >= 4 ? res.body : null;
        },
        withinMs,
        `call ${id} to finish`,
      );

    const outcome = async (path: string) => {
      const delivery = await waitFor(async () => fx.receiver.at(path)[0], 10_000, 'the outcome webhook');
      assert.equal(delivery.headers['webhook-event'], 'outbound_ivr.completed');
      return verifySignature(delivery, fx.a.webhookSecret) as Record<string, unknown>;
    };

    const callActions = (action: string) =>
      fx.fake.requests.filter((r) => r.path === `/v25.0/${PHONE_NUMBER_ID}/calls` && r.body?.action === action);

    it('without calling enabled the channel is no voice channel: 404, nothing placed', async () => {
      const res = await fx.a.api.post('/v1/outbound-ivr', {
        channelId,
        destinationNumber: USER,
        audioFileUrl: 'https://media.example.com/q.wav',
        options: [{ digit: '1', description: 'Confirm' }],
        webhookUrl: 'https://hooks.example.com/ivr',
      });
      assert.equal(res.status, 404, res.text);
      assert.equal(callActions('connect').length, 0);
    });

    it('places the call, plays the prompt as Opus (decoded at the far end), takes the RFC 4733 digit, terminates: Completed with the answer', async () => {
      await enableCalling();
      meta.callee = { answer: 'accept', ringMs: 200 };
      const { id, outcomePath } = await createIvr();

      const connect = await waitFor(async () => callActions('connect')[0], 10_000, 'the connect action');
      assert.equal(connect.auth, `Bearer ${TOKEN}`);
      assert.equal(connect.body.messaging_product, 'whatsapp');
      assert.equal(connect.body.to, USER);
      assert.equal(connect.body.session.sdp_type, 'offer');
      assert.match(connect.body.session.sdp, /a=rtpmap:111 opus\/48000\/2/i);
      assert.equal(connect.body.biz_opaque_callback_data, id);
      const far = await waitFor(async () => [...meta.calls.values()].find((c) => c.tracking === id), 5000, 'the fake call');

      // The whole prompt reaches the far end before the user presses a key.
      const prompt = pcmFromWav(promptWav());
      const expected = Math.ceil(prompt.samples.length / (RATE / 50));
      await waitFor(async () => far.peer.packetsOf('audio/opus').length >= expected, 10_000, 'the prompt at the far end');
      const heard = decode(far.peer.packetsOf('audio/opus').map((p) => p.payload));
      const heardMs = (heard.length / RATE) * 1000;
      const promptMs = (prompt.samples.length / RATE) * 1000;
      assert.ok(Math.abs(heardMs - promptMs) <= 40, `decoded ${heardMs} ms of a ${promptMs} ms prompt`);
      const energy = rms(heard) / rms(prompt.samples);
      assert.ok(energy > 0.7 && energy < 1.3, `decoded RMS / prompt RMS = ${energy.toFixed(3)}`);
      assert.ok(correlation(envelope(heard), envelope(prompt.samples)) > 0.85, 'loud and silent where the prompt is');
      const live = (await fx.a.api.get(`/v1/outbound-ivr/${id}`)).body;
      assert.equal(live.status, 3, 'InProgress while the question waits');
      assert.equal(live.callId, far.id);

      await far.peer.pressKey('1', 200);
      const record = await finished(id);
      assert.equal(record.status, 4);
      assert.equal(record.result, 1);
      assert.equal(record.pressedDigit, '1');
      assert.equal(record.answers.length, 1);
      assert.equal(record.answers[0].digit, '1');
      assert.equal(record.answers[0].description, 'Confirm');
      assert.ok(record.ringingAt && record.answeredAt && record.completedAt);
      // The worker hung up when the dialog ended.
      const terminate = await waitFor(async () => callActions('terminate').find((r) => r.body.call_id === far.id), 5000, 'terminate');
      assert.deepEqual(terminate.body, { messaging_product: 'whatsapp', call_id: far.id, action: 'terminate' });
      assert.equal(far.terminatedBy, 'business');

      const payload = await outcome(outcomePath);
      assert.equal(payload.id, id);
      assert.equal(payload.status, 4);
      assert.equal(payload.result, 1);
      assert.equal(payload.pressedDigit, '1');

      const callHook = await waitFor(async () => fx.receiver.at(callWebhookPath)[0], 10_000, 'the Call Webhook');
      assert.equal(callHook.headers['webhook-event'], 'call');
      const call = verifySignature(callHook, fx.a.webhookSecret) as Record<string, unknown>;
      assert.equal(call.callId, far.id);
      assert.equal(call.type, 2);
      assert.equal(call.status, 1);
      assert.equal(call.channelKind, 'WhatsApp');
      assert.equal(call.contactNumber, `+${USER}`);

      const conversation = (await fx.a.api.post('/v2/conversations/service-account/create', { channelId, phoneNumber: `+${USER}` })).body
        .conversation;
      const timeline = await fx.a.api.get(`/v2/conversations/service-account/${conversation.id}/timeline`);
      assert.equal(timeline.status, 200, timeline.text);
      const event = timeline.body.items.find((e: { sourceType: number }) => e.sourceType === 1);
      assert.ok(event, JSON.stringify(timeline.body.items));
      assert.equal(event.direction, 2);
    });

    it("record: true records the call from its own media: the prompt on the Business channel, the user's voice on the Customer channel, as long as the call", async () => {
      meta.callee = { answer: 'accept', ringMs: 100 };
      const { id, outcomePath } = await createIvr({ record: true });
      const far = await waitFor(async () => [...meta.calls.values()].find((c) => c.tracking === id), 10_000, 'the fake call');
      const prompt = pcmFromWav(promptWav());
      const promptPackets = Math.ceil(prompt.samples.length / (RATE / 50));
      await waitFor(async () => far.peer.packetsOf('audio/opus').length >= promptPackets, 10_000, 'the prompt at the far end');
      // The user speaks for 600 ms (a 1000 Hz tone, nothing like the prompt), then presses 1.
      const voice = Int16Array.from({ length: (RATE * 600) / 1000 }, (_, i) =>
        Math.round(8000 * Math.sin((2 * Math.PI * 1000 * i) / RATE)),
      );
      await far.peer.sendAudio(voice);
      await far.peer.pressKey('1', 200);
      assert.equal((await finished(id)).status, 4);
      // The outcome webhook does not wait for the file.
      assert.equal((await outcome(outcomePath)).recordingUrl, null);
      const record = await waitFor(
        async () => {
          const found = (await fx.a.api.get(`/v1/outbound-ivr/${id}`)).body;
          return found.recordingUrl || found.recordingError ? found : null;
        },
        15_000,
        'the recording',
      );
      assert.equal(record.record, true);
      assert.equal(record.recordingError, null);
      assert.match(record.recordingUrl, /^http:\/\/[^/]+\/media\/[A-Za-z0-9_-]{32}\/recording\.wav$/);

      // PUBLIC_BASE_URL is not this app's address here: the file is asked of the app by its path.
      const { wav, format } = await fetchRecording(`${fx.t.baseUrl}${new URL(record.recordingUrl).pathname}`, record, 300);
      assert.ok(Math.abs(format.durationMs / 1000 - record.callDurationSeconds) <= 1);

      // Business (left): the prompt as played, from its first loud sample.
      const business = wavChannel(wav, 0);
      const start = business.findIndex((s) => Math.abs(s) > 500);
      assert.ok(start >= 0, 'the prompt on the business channel');
      const played = business.subarray(start, start + prompt.samples.length);
      assert.ok(correlation(envelope(played), envelope(prompt.samples)) > 0.85, 'the business channel is the prompt');
      // Customer (right): silent while the prompt played, then the user's 600 ms of 1000 Hz.
      const customer = wavChannel(wav, 1);
      const loudAt = envelope(customer)
        .map((e, k) => `${k * 20}:${Math.round(e)}`)
        .filter((e) => !e.endsWith(':0'))
        .slice(0, 12);
      assert.ok(
        rms(customer, start, start + prompt.samples.length) < 100,
        `nothing on the customer channel during the prompt (${start / 8} ms to ${(start + prompt.samples.length) / 8} ms; customer ms:rms ${loudAt.join(' ')})`,
      );
      const loud = envelope(customer)
        .map((e, k) => (e > 1000 ? k : -1))
        .filter((k) => k >= 0);
      assert.ok(loud.length >= 25 && loud.length <= 35, `${loud.length * 20} ms of the user's voice (600 ms sent)`);
      assert.ok(loud[0] * (RATE / 50) > start + prompt.samples.length - RATE / 10, 'the voice after the prompt');
      const spoken = customer.subarray(loud[0] * (RATE / 50), (loud.at(-1)! + 1) * (RATE / 50));
      assert.ok(
        power(spoken, 1000) > 20 * power(spoken, 440) && power(spoken, 1000) > 20 * power(spoken, 700),
        'the voice is the 1000 Hz tone',
      );
    });

    it('a key pressed while the question is asked again is the answer (a silent first turn leaves no stale wait behind)', async () => {
      meta.callee = { answer: 'accept', ringMs: 100 };
      const { id } = await createIvr({ maxAudioRetries: 1, inputTimeoutMs: 1000 });
      const far = await waitFor(async () => [...meta.calls.values()].find((c) => c.tracking === id), 10_000, 'the fake call');
      const perPrompt = Math.ceil(pcmFromWav(promptWav()).samples.length / (RATE / 50));
      // The first prompt plays out and its wait ends in silence; the key comes during the repeat.
      await waitFor(async () => far.peer.packetsOf('audio/opus').length >= perPrompt + 10, 15_000, 'the prompt asked again');
      await far.peer.pressKey('2', 200);
      const record = await finished(id, 15_000);
      assert.equal(record.status, 4, JSON.stringify(record));
      assert.equal(record.pressedDigit, '2');
      assert.equal(record.result, 1);
      assert.ok(far.peer.packetsOf('audio/opus').length < 2 * perPrompt, 'the key cut the repeated prompt short');
    });

    it("Meta's SDP answer redelivered after ACCEPTED is ignored: the call runs to its answer", async () => {
      meta.callee = { answer: 'accept', ringMs: 100, answerWebhook: 'twice' };
      const { id } = await createIvr();
      const far = await waitFor(async () => [...meta.calls.values()].find((c) => c.tracking === id), 10_000, 'the fake call');
      await waitFor(async () => far.peer.packetsOf('audio/opus').length >= 20, 10_000, 'the prompt at the far end');
      await far.peer.pressKey('1', 200);
      const record = await finished(id, 15_000);
      assert.equal(record.status, 4, JSON.stringify(record));
      assert.equal(record.pressedDigit, '1');
    });

    it('ACCEPTED without an SDP answer from Meta: Failed, MediaPathFailed, within the connect timeout, and the call is terminated', async () => {
      meta.callee = { answer: 'accept', ringMs: 100, answerWebhook: 'never' };
      const started = Date.now();
      const { id, outcomePath } = await createIvr();
      const record = await finished(id, 15_000);
      const tookMs = Date.now() - started;
      assert.ok(tookMs < CONNECT_TIMEOUT_MS + 5000, `ended after ${tookMs} ms`);
      assert.equal(record.status, 7);
      assert.equal(record.hangupCause, 'MediaPathFailed');
      assert.match(record.errorMessage, /no SDP answer/);
      const far = [...meta.calls.values()].find((c) => c.tracking === id)!;
      await waitFor(async () => far.terminatedBy, 5000, 'the call terminated at Meta');
      assert.equal(far.terminatedBy, 'business');
      assert.equal((await outcome(outcomePath)).status, 7);
    });

    it("a call signal signed by another workspace's channel but naming this number is dropped: the call goes on", async () => {
      const otherSecret = 'other-workspace-app-secret';
      const other = await fx.t.admin.post(`/admin/v1/workspaces/${fx.b.workspaceId}/channels`, {
        name: 'Another tenant',
        type: 2,
        phoneNumber: '+14155550903',
        whatsApp: {
          provider: 'cloud-api',
          phoneNumberId: '3098799',
          wabaId: '557',
          accessToken: TOKEN,
          appSecret: otherSecret,
          verifyToken: 'v',
        },
      });
      assert.equal(other.status, 200, other.text);
      meta.callee = { answer: 'accept', ringMs: 100 };
      const { id } = await createIvr();
      const far = await waitFor(async () => [...meta.calls.values()].find((c) => c.tracking === id), 10_000, 'the fake call');
      await waitFor(async () => far.peer.packetsOf('audio/opus').length >= 10, 10_000, 'the prompt at the far end');
      // The other tenant's own, validly signed webhook, claiming this number's call ended.
      const forged = {
        object: 'whatsapp_business_account',
        entry: [
          {
            id: '557',
            changes: [
              {
                field: 'calls',
                value: {
                  messaging_product: 'whatsapp',
                  metadata: { display_phone_number: '14155550903', phone_number_id: PHONE_NUMBER_ID },
                  calls: [
                    { id: far.id, event: 'terminate', status: 'COMPLETED', duration: 1, timestamp: String(Math.floor(Date.now() / 1000)) },
                  ],
                },
              },
            ],
          },
        ],
      };
      const status = await FakeCloudApi.notify(`${fx.t.baseUrl}/v1/whatsapp/webhooks/${other.body.id}`, otherSecret, forged);
      assert.equal(status, 200);
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal((await fx.a.api.get(`/v1/outbound-ivr/${id}`)).body.status, 3, 'still InProgress');
      await far.peer.pressKey('1', 200);
      const record = await finished(id, 15_000);
      assert.equal(record.status, 4, JSON.stringify(record));
      assert.equal(record.pressedDigit, '1');
    });

    it('five calls at once on one number: each call hears its own signals and takes its own digit', async () => {
      meta.callee = { answer: 'accept', ringMs: 150 };
      const calls = await Promise.all(Array.from({ length: 5 }, () => createIvr()));
      const fars = await Promise.all(
        calls.map(({ id }) => waitFor(async () => [...meta.calls.values()].find((c) => c.tracking === id), 15_000, `call ${id} at Meta`)),
      );
      await Promise.all(
        fars.map((far) => waitFor(async () => far.peer.packetsOf('audio/opus').length >= 75, 20_000, `the prompt of ${far.id}`)),
      );
      // From Meta's ACCEPTED (the fake posting the webhook) to the first prompt packet at the user: the edge, Redis, the
      // worker's dialog turn and the pacer (the target is 500 ms; asserted loosely, on a shared machine).
      const firstPacketMs = fars.map((far) => Math.round(far.peer.packetsOf('audio/opus')[0].at - far.acceptedPerf!)).sort((a, b) => a - b);
      console.log(`first prompt packet after ACCEPTED, 5 calls at once: ${firstPacketMs.join(', ')} ms`);
      assert.ok(firstPacketMs.at(-1)! < 2000, `first packet ${firstPacketMs.join(', ')} ms after ACCEPTED`);
      await Promise.all(fars.map((far, i) => far.peer.pressKey(i % 2 === 0 ? '1' : '2', 200)));
      const records = await Promise.all(calls.map(({ id }) => finished(id, 20_000)));
      records.forEach((record, i) => {
        assert.equal(record.status, 4, JSON.stringify(record));
        assert.equal(record.pressedDigit, i % 2 === 0 ? '1' : '2');
        assert.equal(record.callId, fars[i].id);
      });
    });

    it("Meta's terminate mid-prompt (the user hangs up): the dialog ends at once, Completed without an answer, no terminate from us", async () => {
      meta.callee = { answer: 'accept', ringMs: 100, hangUpAfterMs: 500 };
      const { id, outcomePath } = await createIvr();
      const record = await finished(id, 10_000);
      const far = [...meta.calls.values()].find((c) => c.tracking === id)!;
      assert.equal(far.terminatedBy, 'user');
      assert.equal(record.status, 4);
      assert.equal(record.pressedDigit, null);
      assert.deepEqual(record.answers, []);
      assert.equal(record.hangupCause, 'UserHangUp');
      assert.ok(far.peer.packetsOf('audio/opus').length < 75, 'the prompt was cut short, not played to its end');
      assert.equal(callActions('terminate').filter((r) => r.body.call_id === far.id).length, 0);
      assert.equal((await outcome(outcomePath)).status, 4);
    });

    it('cancel while the question waits: Cancelled at once, and the worker terminates the WhatsApp call', async () => {
      meta.callee = { answer: 'accept', ringMs: 100 };
      const { id, outcomePath } = await createIvr();
      await waitFor(async () => (await fx.a.api.get(`/v1/outbound-ivr/${id}`)).body.status === 3, 10_000, 'in progress');
      const cancelled = await fx.a.api.post(`/v1/outbound-ivr/${id}/cancel`, {});
      assert.equal(cancelled.status, 200, cancelled.text);
      const record = await finished(id, 10_000);
      assert.equal(record.status, 8);
      const far = [...meta.calls.values()].find((c) => c.tracking === id)!;
      await waitFor(async () => far.terminatedBy, 10_000, 'the call terminated at Meta');
      assert.equal(far.terminatedBy, 'business');
      assert.equal((await outcome(outcomePath)).status, 8);
      assert.equal((await fx.a.api.get(`/v1/outbound-ivr/${id}`)).body.status, 8, 'still Cancelled after the call ended');
    });

    it('the user declines (REJECTED): Busy, DestinationBusy, as a phone call the callee rejects', async () => {
      meta.callee = { answer: 'reject', ringMs: 100 };
      const { id, outcomePath } = await createIvr();
      const record = await finished(id, 10_000);
      assert.equal(record.status, 6);
      assert.equal(record.result, 5);
      assert.equal(record.answeredAt, null);
      assert.equal(record.hangupCause, 'REJECTED');
      assert.equal((await outcome(outcomePath)).status, 6);
    });

    it('the user lets it ring: NoAnswer, NotAnswered after the ring timeout, and the worker terminates the call', async () => {
      meta.callee = { answer: 'ignore', ringMs: 0 };
      const started = Date.now();
      const { id, outcomePath } = await createIvr();
      const record = await finished(id, 15_000);
      assert.ok(Date.now() - started >= RING_TIMEOUT_MS, 'not before the ring timeout');
      assert.equal(record.status, 5);
      assert.equal(record.result, 4);
      assert.ok(record.ringingAt);
      assert.equal(record.answeredAt, null);
      const far = [...meta.calls.values()].find((c) => c.tracking === id)!;
      assert.equal(far.terminatedBy, 'business');
      assert.equal((await outcome(outcomePath)).status, 5);
    });

    it('a media path that never connects: Failed with a clear errorMessage within the connect timeout, and the call is terminated', async () => {
      meta.callee = { answer: 'accept', ringMs: 100, media: 'unreachable' };
      const started = Date.now();
      const { id, outcomePath } = await createIvr();
      const record = await finished(id, 15_000);
      const tookMs = Date.now() - started;
      assert.ok(tookMs < CONNECT_TIMEOUT_MS + 5000, `ended after ${tookMs} ms`);
      assert.equal(record.status, 7);
      assert.equal(record.result, 6);
      assert.equal(record.hangupCause, 'MediaPathFailed');
      assert.match(record.errorMessage, /media|ICE|DTLS|connect/i);
      const far = [...meta.calls.values()].find((c) => c.tracking === id)!;
      assert.equal(far.terminatedBy, 'business');
      assert.equal((await outcome(outcomePath)).status, 7);
    });

    it("Meta refuses the call with 138006 (no call permission): Failed, hangupCause NoPermission, Meta's words in errorMessage", async () => {
      meta.callee = { answer: 'accept', ringMs: 100 };
      meta.connectScript.push(
        FakeCloudApi.error(400, 138006, 'Business-initiated calling is not allowed: no approved call permission request'),
      );
      const { id, outcomePath } = await createIvr();
      const record = await finished(id, 10_000);
      assert.equal(record.status, 7);
      assert.equal(record.hangupCause, 'NoPermission');
      assert.match(record.errorMessage, /permission to call.*138006/);
      assert.equal(record.callId, null);
      assert.equal((await outcome(outcomePath)).status, 7);
    });

    it('a user calls a number with no inbound or after-hours flow: Meta is asked to reject the call at once', async () => {
      const call = await meta.userCalls(USER);
      const reject = await waitFor(async () => callActions('reject').find((r) => r.body.call_id === call.id), 5000, 'reject');
      assert.equal(reject.auth, `Bearer ${TOKEN}`);
      assert.deepEqual(reject.body, { messaging_product: 'whatsapp', call_id: call.id, action: 'reject' });
      assert.equal(call.rejected, true);
    });

    const saveFlow = async (name: string) => {
      const flow = await fx.a.api.post('/v1/outbound-ivr-flows', {
        name,
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
      return flow.body.id as string;
    };

    const setCalling = async (settings: Record<string, unknown>) => {
      const res = await fx.a.api.request('PUT', `/v1/channels/${channelId}/calling`, { json: { enabled: true, ...settings } });
      assert.equal(res.status, 200, res.text);
      // The edge reads the channel from a cache of a few seconds: wait until it knows the change.
      await new Promise((resolve) => setTimeout(resolve, 5500));
    };

    const recordOfCall = (callId: string, withinMs = 15_000, finishedOnly = true) =>
      waitFor(
        async () => {
          const list = await fx.a.api.get('/v1/outbound-ivr?MaxResultCount=100');
          const record = list.body.items.find((r: { callId: string }) => r.callId === callId);
          return record && (!finishedOnly || record.status >= 4) ? record : null;
        },
        withinMs,
        `the record of call ${callId}`,
      );

    it("a user calls a number with an inbound flow: answered (pre_accept, then accept with the same SDP answer), the flow's question heard, the key recorded; Call Webhook type 1", async () => {
      const inboundFlowId = await saveFlow('Reception');
      await setCalling({ inboundFlowId });
      const call = await meta.userCalls(USER);
      await waitFor(async () => call.actions.length === 2, 10_000, 'pre_accept and accept');
      assert.deepEqual(call.actions, ['pre_accept', 'accept']);
      const [preAccept, accept] = ['pre_accept', 'accept'].map((action) => callActions(action).find((r) => r.body.call_id === call.id)!);
      assert.equal(preAccept.auth, `Bearer ${TOKEN}`);
      assert.equal(preAccept.body.session.sdp_type, 'answer');
      assert.match(preAccept.body.session.sdp, /a=rtpmap:111 opus\/48000\/2/i);
      assert.equal(accept.body.session.sdp, preAccept.body.session.sdp, 'accept carries the answer pre_accept sent');
      assert.equal(callActions('reject').filter((r) => r.body.call_id === call.id).length, 0);

      const prompt = pcmFromWav(promptWav());
      const expected = Math.ceil(prompt.samples.length / (RATE / 50));
      await waitFor(async () => call.peer.packetsOf('audio/opus').length >= expected, 10_000, 'the question at the caller');
      const heard = decode(call.peer.packetsOf('audio/opus').map((p) => p.payload));
      const heardMs = (heard.length / RATE) * 1000;
      const promptMs = (prompt.samples.length / RATE) * 1000;
      assert.ok(Math.abs(heardMs - promptMs) <= 40, `decoded ${heardMs} ms of a ${promptMs} ms prompt`);
      assert.ok(correlation(envelope(heard), envelope(prompt.samples)) > 0.85, 'the question as it was recorded');
      const live = await recordOfCall(call.id, 5000, false);
      assert.equal(live.status, 3, 'InProgress while the question waits');
      assert.equal(live.direction, 1);
      assert.equal(live.webhookUrl, null);

      await call.peer.pressKey('2', 200);
      const record = await recordOfCall(call.id);
      assert.equal(record.status, 4, JSON.stringify(record));
      assert.equal(record.flowId, inboundFlowId);
      assert.equal(record.destinationNumber, `+${USER}`);
      assert.equal(record.answers.length, 1);
      assert.deepEqual([record.answers[0].stepId, record.answers[0].digit, record.answers[0].description], ['ask', '2', 'Support']);
      assert.equal(record.pressedDigit, '2');
      await waitFor(async () => call.terminatedBy, 5000, 'the call ended at Meta');
      assert.equal(call.terminatedBy, 'business', 'the flow hung up after the answer');

      const hook = await waitFor(
        async () =>
          fx.receiver.at(callWebhookPath).find((d) => (verifySignature(d, fx.a.webhookSecret) as { callId: string }).callId === call.id),
        10_000,
        'the Call Webhook of the inbound call',
      );
      const payload = verifySignature(hook, fx.a.webhookSecret) as Record<string, unknown>;
      assert.equal(payload.type, 1);
      assert.equal(payload.status, 1);
      assert.equal(payload.channelKind, 'WhatsApp');
      assert.equal(payload.callerNumber, `+${USER}`);
      assert.equal(payload.calleeNumber, '+14155550902');

      const conversation = (await fx.a.api.post('/v2/conversations/service-account/create', { channelId, phoneNumber: `+${USER}` })).body
        .conversation;
      const timeline = await fx.a.api.get(`/v2/conversations/service-account/${conversation.id}/timeline`);
      const event = timeline.body.items.find((e: { sourceType: number; direction: number }) => e.sourceType === 1 && e.direction === 1);
      assert.ok(event, JSON.stringify(timeline.body.items));
      assert.equal(event.direction, 1);
      assert.match(event.body, /Inbound WhatsApp IVR call: Completed/);
      await call.peer.close();
    });

    it('outside call hours the after-hours flow answers; the user hanging up mid-question ends it Completed without an answer', async () => {
      const inboundFlowId = await saveFlow('Reception (open)');
      const afterHoursFlowId = await saveFlow('Reception (closed)');
      const today = new Date().toISOString().slice(0, 10);
      const days = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];
      await setCalling({
        inboundFlowId,
        afterHoursFlowId,
        callHours: {
          timezoneId: 'UTC',
          weeklyOperatingHours: days.map((dayOfWeek) => ({ dayOfWeek, openTime: '0000', closeTime: '2359' })),
          // Closed all of today: a holiday.
          holidaySchedule: [{ date: today, startTime: '0000', endTime: '2359' }],
        },
      });
      const call = await meta.userCalls(USER);
      await waitFor(async () => call.peer.packetsOf('audio/opus').length >= 20, 10_000, 'the question at the caller');
      await meta.hangUp(call.id);
      const record = await recordOfCall(call.id);
      assert.equal(record.flowId, afterHoursFlowId);
      assert.equal(record.status, 4);
      assert.equal(record.hangupCause, 'UserHangUp');
      assert.deepEqual(record.answers, []);
      assert.equal(
        callActions('terminate').filter((r) => r.body.call_id === call.id).length,
        0,
        'no terminate from us after the user hung up',
      );
    });
  },
);
