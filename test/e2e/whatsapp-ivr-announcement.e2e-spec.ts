import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { pcmWavHeader } from '../../src/media/wav.js';
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

const TOKEN = 'EAAG-ivr-announcement-token';
const APP_SECRET = 'ivr-announcement-app-secret';
const PHONE_NUMBER_ID = '3098772';
const USER = '966501239001';
/** The announcement: 800 ms of a steady 1000 Hz tone, nothing like the prompt (440 Hz, then 700 + 1200 Hz). */
const ANNOUNCEMENT_MS = 800;
const TONE_HZ = 1000;

function announcementSamples(): Int16Array {
  return Int16Array.from({ length: (RATE * ANNOUNCEMENT_MS) / 1000 }, (_, i) =>
    Math.round(6000 * Math.sin((2 * Math.PI * TONE_HZ * i) / RATE)),
  );
}

function wavOf(samples: Int16Array): Buffer {
  const data = Buffer.alloc(samples.length * 2);
  samples.forEach((s, i) => data.writeInt16LE(s, i * 2));
  return Buffer.concat([pcmWavHeader(data.length, RATE), data]);
}

/** Whether `samples` are the announcement's tone: its frequency far above the prompt's. */
const isTone = (samples: Int16Array) =>
  power(samples, TONE_HZ) > 20 * power(samples, 440) && power(samples, TONE_HZ) > 20 * power(samples, 700);

/**
 * A recorded WhatsApp call with a recording announcement (API.md §16): the announcement is played
 * first, in full (a key pressed during it neither cuts it short nor answers the question, as on a
 * phone call, where it is played before the gather), then the flow's question; the recording is
 * the worker's own, as long as the call, the announcement and the question on its business channel.
 */
describeWithApp(
  'A recorded WhatsApp IVR call plays its recording announcement first, then the flow; the recording is as long as the call',
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
    let announcementUrl: string;
    let flowId: string;

    const upload = async (bytes: Buffer, name: string) => {
      const uploaded = await uploadFile(fx.t.baseUrl, '/v1/support/upload-audio', fx.a.token, 'audioFile', {
        bytes,
        name,
        type: 'audio/wav',
      });
      assert.equal(uploaded.status, 200, JSON.stringify(uploaded.body));
      return uploaded.body.url as string;
    };

    before(async () => {
      const created = await fx.t.admin.post(`/admin/v1/workspaces/${fx.a.workspaceId}/channels`, {
        name: 'WhatsApp recorded line',
        type: 2,
        phoneNumber: '+14155550912',
        whatsApp: {
          provider: 'cloud-api',
          phoneNumberId: PHONE_NUMBER_ID,
          wabaId: '562',
          accessToken: TOKEN,
          appSecret: APP_SECRET,
          verifyToken: 'v',
        },
      });
      assert.equal(created.status, 200, created.text);
      channelId = created.body.id;
      const webhookUrl = `${fx.t.baseUrl}/v1/whatsapp/webhooks/${channelId}`;
      meta = new FakeMetaCalls(webhookUrl, APP_SECRET, PHONE_NUMBER_ID);
      fx.fake.calls = meta;
      assert.equal((await fx.a.api.request('PUT', `/v1/channels/${channelId}/calling`, { json: { enabled: true } })).status, 200);
      await grantCallPermission(fx.a.api, { id: channelId, webhookUrl, appSecret: APP_SECRET, phoneNumberId: PHONE_NUMBER_ID }, USER);
      promptUrl = await upload(promptWav(), 'question.wav');
      announcementUrl = await upload(wavOf(announcementSamples()), 'announcement.wav');
      const flow = await fx.a.api.post('/v1/outbound-ivr-flows', {
        name: 'Recorded reception',
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
              inputTimeoutMs: 10_000,
            },
          },
          { id: 'bye', type: 'Hangup', props: {} },
        ],
      });
      assert.equal(flow.status, 200, flow.text);
      flowId = flow.body.id;
    });

    it('the announcement reaches the user first and in full (a key during it is not the answer), then the question; the recording holds both and is as long as the call', async () => {
      meta.callee = { answer: 'accept', ringMs: 100 };
      const outcomePath = '/ivr/announced';
      const created = await fx.a.api.post('/v1/outbound-ivr', {
        channelId,
        destinationNumber: USER,
        flowId,
        webhookUrl: fx.receiver.url(outcomePath),
        record: true,
        recordingAnnouncementAudioUrl: announcementUrl,
      });
      assert.equal(created.status, 200, created.text);
      const id = created.body.id as string;
      const far = await waitFor(async () => [...meta.calls.values()].find((c) => c.tracking === id), 10_000, 'the WhatsApp call');

      const announcement = announcementSamples();
      const prompt = pcmFromWav(promptWav()).samples;
      const frame = RATE / 50;
      const announcementPackets = Math.ceil(announcement.length / frame);
      const promptPackets = Math.ceil(prompt.length / frame);
      // Halfway through the announcement the user presses 1: it is no answer to a question not yet asked.
      await waitFor(async () => far.peer.packetsOf('audio/opus').length >= announcementPackets / 2, 10_000, 'the announcement under way');
      await far.peer.pressKey('1', 200);
      await waitFor(
        async () => far.peer.packetsOf('audio/opus').length >= announcementPackets + promptPackets,
        10_000,
        'the announcement and the question at the far end',
      );

      const heard = decode(far.peer.packetsOf('audio/opus').map((p) => p.payload));
      const heardAnnouncement = heard.subarray(0, announcementPackets * frame);
      const heardPrompt = heard.subarray(announcementPackets * frame, (announcementPackets + promptPackets) * frame);
      // First the announcement, whole: as long, as loud, the same tone.
      assert.equal((heardAnnouncement.length / RATE) * 1000, ANNOUNCEMENT_MS, 'the whole announcement, not cut short by the key');
      const energy = rms(heardAnnouncement) / rms(announcement);
      assert.ok(energy > 0.7 && energy < 1.3, `decoded announcement RMS / announcement RMS = ${energy.toFixed(3)}`);
      assert.ok(isTone(heardAnnouncement), 'the announcement is heard first');
      // Then the flow's question.
      const promptEnergy = rms(heardPrompt) / rms(prompt);
      assert.ok(promptEnergy > 0.7 && promptEnergy < 1.3, `decoded question RMS / question RMS = ${promptEnergy.toFixed(3)}`);
      assert.ok(correlation(envelope(heardPrompt), envelope(prompt)) > 0.85, 'the question follows the announcement');
      const live = (await fx.a.api.get(`/v1/outbound-ivr/${id}`)).body;
      assert.equal(live.status, 3, 'still waiting for the answer');
      assert.deepEqual(live.answers, [], 'the key pressed during the announcement answered nothing');

      await far.peer.pressKey('2', 200);
      const record = await waitFor(
        async () => {
          const found = (await fx.a.api.get(`/v1/outbound-ivr/${id}`)).body;
          return found.status >= 4 && (found.recordingUrl || found.recordingError) ? found : null;
        },
        20_000,
        'the call to end and its recording',
      );
      assert.equal(record.status, 4, JSON.stringify(record));
      assert.deepEqual(
        record.answers.map((a: { stepId: string; digit: string; description: string }) => [a.stepId, a.digit, a.description]),
        [['ask', '2', 'Support']],
      );
      assert.equal(record.record, true);
      assert.equal(record.recordingError, null);
      const payload = verifySignature(
        await waitFor(async () => fx.receiver.at(outcomePath)[0], 10_000, 'the outcome webhook'),
        fx.a.webhookSecret,
      ) as Record<string, unknown>;
      assert.equal(payload.pressedDigit, '2');

      // The recording: as long as the call; on the business channel, the announcement, then the question.
      const { wav, format } = await fetchRecording(`${fx.t.baseUrl}${new URL(record.recordingUrl).pathname}`, record, 300);
      assert.ok(
        Math.abs(format.durationMs / 1000 - record.callDurationSeconds) <= 1,
        `recording ${format.durationMs} ms, call ${record.callDurationSeconds} s`,
      );
      const business = wavChannel(wav, 0);
      const start = business.findIndex((s) => Math.abs(s) > 500);
      assert.ok(start >= 0, 'something played on the business channel');
      assert.ok(isTone(business.subarray(start, start + announcement.length)), 'the recording starts with the announcement');
      // The question follows within a second (a loaded machine may leave a few packets' gap between them).
      const after = start + announcement.length;
      const questionStart = after + business.subarray(after).findIndex((s) => Math.abs(s) > 500);
      assert.ok(
        questionStart >= after && questionStart - after < format.sampleRate,
        `the question starts ${questionStart - after} samples after`,
      );
      const question = business.subarray(questionStart, questionStart + prompt.length);
      assert.ok(correlation(envelope(question), envelope(prompt)) > 0.85, 'then the question, right after it');
      await meta.closeAll();
    });
  },
);
