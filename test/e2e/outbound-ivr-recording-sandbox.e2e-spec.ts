import assert from 'node:assert/strict';
import { it } from 'node:test';
import { DataSource } from 'typeorm';
import { Retention } from '../../src/queue/retention.service.js';
import { describeWithApp } from '../support/describe-with-app.js';
import { createChannel, waitFor } from '../support/fixtures.js';
import { freePort } from '../support/free-port.js';
import { fetchRecording, orphanRecordings, refuseRecordingWrites } from '../support/recordings.js';
import { verifySignature, WebhookReceiver } from '../support/webhook-receiver.js';

type Payload = Record<string, any>;

const TALK_MS = 600;

/** The energy of one frequency in a stretch of samples (Goertzel). */
function power(samples: number[], hz: number): number {
  const k = 2 * Math.cos((2 * Math.PI * hz) / 8000);
  let [s1, s2] = [0, 0];
  for (const x of samples) [s1, s2] = [x + k * s1 - s2, s1];
  return s1 * s1 + s2 * s2 - k * s1 * s2;
}

/** One channel (0 left, 1 right) of a two-channel 16-bit WAV, from `fromMs` to `toMs`. */
function channelSamples(wav: Buffer, channel: number, fromMs: number, toMs: number): number[] {
  const data = wav.indexOf('data') + 8;
  const frames = (wav.length - data) / 4;
  const out: number[] = [];
  for (let f = Math.floor(fromMs * 8); f < Math.min(frames, Math.floor(toMs * 8)); f++)
    out.push(wav.readInt16LE(data + f * 4 + channel * 2));
  return out;
}

const loud = (samples: number[]) => samples.some((s) => Math.abs(s) > 500);

describeWithApp(
  'Call recording with the sandbox voice provider, and its retention (API.md §16)',
  {
    peers: { receiver: () => WebhookReceiver.start() },
    // The recording URL is absolute: PUBLIC_BASE_URL is the app's own address.
    env: async () => {
      const port = await freePort();
      return {
        PORT: String(port),
        PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        RATE_LIMIT_IVR_CALLS_PER_SECOND: '1000',
        RETENTION_INTERVAL: '1h',
      };
    },
  },
  (fx) => {
    let seq = 0;

    /** A sandbox channel that records its calls by default, announcing it, and presses 1. */
    const recordingChannel = async (voice: Record<string, unknown> = {}) => {
      const channel = await createChannel(fx.t, fx.a.workspaceId, {
        type: 1,
        whatsApp: undefined,
        voice: {
          provider: 'sandbox',
          fromNumber: '+14155550100',
          sandbox: { ringMs: 0, talkMs: TALK_MS, pressDigits: ['1'] },
          recordCalls: true,
          recordingAnnouncementTtsText: 'This call is recorded.',
          ...voice,
        },
        postCallWebhookUrl: fx.receiver.url(`/calls/${++seq}`),
      });
      return { id: channel.id as string, callPath: `/calls/${seq}`, channel: channel as Payload };
    };

    const callThrough = async (channel: { id: string; callPath: string }, extra: Record<string, unknown> = {}) => {
      const body = {
        channelId: channel.id,
        destinationNumber: `96650${1_000_000 + ++seq}`,
        ttsText: 'Press one to confirm your order.',
        options: [{ digit: '1', description: 'Confirm' }],
        maxAudioRetries: 0,
        webhookUrl: fx.receiver.url(`/ivr/${++seq}`),
        ...extra,
      };
      const created = await fx.a.api.post('/v1/outbound-ivr', body);
      assert.equal(created.status, 200, created.text);
      const path = new URL(body.webhookUrl).pathname;
      const outcome = verifySignature(
        await waitFor(async () => fx.receiver.at(path)[0], 20_000, 'the outcome webhook'),
        fx.a.webhookSecret,
      ) as Payload;
      const callId = `SB${(created.body.id as string).replace(/-/g, '')}`;
      const call = verifySignature(
        await waitFor(async () => fx.receiver.at(channel.callPath).find((r) => r.body.includes(callId)), 10_000, 'the Call Webhook'),
        fx.a.webhookSecret,
      ) as Payload;
      // Read once the Call Webhook went: a recorded call's waits for its recording.
      const record = (await fx.a.api.get(`/v1/outbound-ivr/${created.body.id}`)).body as Payload;
      return { record, outcome, call };
    };

    it("records a call by the channel's default: the announcement first, the keys' tones, as long as the call; the URL everywhere", async () => {
      const channel = await recordingChannel();
      assert.deepEqual(channel.channel.voiceRecording, {
        recordCalls: true,
        announcementAudioUrl: null,
        announcementTtsText: 'This call is recorded.',
      });
      const { record, outcome, call } = await callThrough(channel);
      assert.equal(record.status, 4);
      assert.equal(record.result, 1);
      assert.equal(record.record, true);
      assert.equal(record.recordingAnnouncementTtsText, 'This call is recorded.');
      assert.match(record.recordingUrl, /^http:\/\/[^/]+\/media\/[A-Za-z0-9_-]{32}\/recording\.wav$/);
      // Stored after the outcome was reported (the outcome webhook never waits for the file); the
      // Call Webhook waited for it.
      assert.equal(outcome.status, 4);
      assert.equal(outcome.recordingUrl, null);
      assert.equal(call.recordingUrl, record.recordingUrl);

      // As long as the call: from the answer to the hang-up (two talks of TALK_MS).
      const { wav, format } = await fetchRecording(record.recordingUrl, record, 250);
      assert.ok(format.durationMs >= 2 * TALK_MS, `recording ${format.durationMs} ms`);
      assert.ok(Math.abs(format.durationMs / 1000 - record.callDurationSeconds) < 1);

      // Left (Business): the announcement plays from the start. Right (Customer): silent until the
      // key is pressed (after the first talk), then key 1's two tones (697 Hz and 1209 Hz, not 941 Hz / 1477 Hz).
      assert.ok(loud(channelSamples(wav, 0, 0, 300)), 'the announcement at the start of the business channel');
      const pressedMs = Date.parse(record.answers[0].answeredAt) - Date.parse(record.answeredAt);
      assert.ok(pressedMs >= TALK_MS, `pressed ${pressedMs} ms into the call`);
      assert.ok(!loud(channelSamples(wav, 1, 0, pressedMs - 600)), 'nothing on the customer channel before the key');
      const tone = channelSamples(wav, 1, pressedMs - 600, pressedMs + 300).filter((s) => s !== 0);
      assert.ok(tone.length >= 1000 && tone.length <= 1200, `a tone of ${tone.length} samples (150 ms is 1200)`);
      assert.ok(power(tone, 697) > 20 * power(tone, 941) && power(tone, 1209) > 20 * power(tone, 1477), 'the tones of key 1');

      // The timeline's Call event links the recording.
      const conversation = (
        await fx.a.api.post('/v2/conversations/service-account/create', { channelId: channel.id, phoneNumber: record.destinationNumber })
      ).body.conversation;
      const items = (await fx.a.api.get(`/v2/conversations/service-account/${conversation.id}/timeline`)).body.items as Payload[];
      assert.equal(
        items.find((e) => e.sourceType === 1 && e.attachment?.callId === record.callId)?.attachment.recordingUrl,
        record.recordingUrl,
      );
    });

    it("record: false overrides the channel's default; an invalid record or two announcements are a 400 naming the field", async () => {
      const channel = await recordingChannel();
      const { record, outcome } = await callThrough(channel, { record: false });
      assert.equal(record.record, false);
      assert.equal(record.recordingUrl, null);
      assert.equal(record.recordingAnnouncementTtsText, null);
      assert.equal(outcome.recordingUrl, null);

      const base = {
        channelId: channel.id,
        destinationNumber: '966501234567',
        ttsText: 'Hi',
        options: [{ digit: '1', description: 'Yes' }],
        webhookUrl: fx.receiver.url('/x'),
      };
      const notBoolean = await fx.a.api.post('/v1/outbound-ivr', { ...base, record: 'yes' });
      assert.equal(notBoolean.status, 400, notBoolean.text);
      assert.deepEqual(notBoolean.body.error.validationErrors[0].members, ['record']);
      const both = await fx.a.api.post('/v1/outbound-ivr', {
        ...base,
        record: true,
        recordingAnnouncementAudioUrl: 'https://media.example.com/a.wav',
        recordingAnnouncementTtsText: 'Recorded.',
      });
      assert.equal(both.status, 400, both.text);
      assert.equal(both.body.error.code, 'OutboundIvr:InvalidRequest');
    });

    it('a recording its call cannot take (the database refuses the write) leaves no file behind, and the call says why', async () => {
      const channel = await recordingChannel({ sandbox: { ringMs: 0, talkMs: 200, pressDigits: ['1'] } });
      const db = fx.t.app.get(DataSource);
      const refusal = await refuseRecordingWrites(db);
      try {
        const { record, outcome, call } = await callThrough(channel);
        assert.equal(outcome.status, 4);
        assert.equal(record.recordingUrl, null);
        assert.match(record.recordingError, /The recording could not be stored: .*recording writes refused by the test/);
        assert.equal(call.recordingUrl, null);
      } finally {
        await refusal.release();
      }
      assert.equal(await orphanRecordings(db, fx.a.workspaceId), 0);
    });

    it('prunes recordings older than RECORDING_RETENTION: the file is gone and the call says why', async () => {
      const channel = await recordingChannel({
        recordingAnnouncementTtsText: undefined,
        sandbox: { ringMs: 0, talkMs: 200, pressDigits: ['1'] },
      });
      const old = (await callThrough(channel)).record;
      const recent = (await callThrough(channel)).record;
      assert.equal((await fetch(old.recordingUrl)).status, 200);
      const db = fx.t.app.get(DataSource);
      await db.query(`UPDATE outbound_ivr_requests SET recorded_at = now() - interval '91 days' WHERE id = $1`, [old.id]);

      const result = await fx.t.app.get(Retention).prune('media_files');
      assert.ok(result.deleted >= 1, JSON.stringify(result));
      const pruned = (await fx.a.api.get(`/v1/outbound-ivr/${old.id}`)).body as Payload;
      assert.equal(pruned.recordingUrl, null);
      assert.match(pruned.recordingError, /RECORDING_RETENTION/);
      assert.equal((await fetch(old.recordingUrl)).status, 404);
      const key = new URL(old.recordingUrl as string).pathname.split('/')[2];
      const [{ n }] = await db.query(`SELECT count(*)::int AS n FROM media_files WHERE key = $1`, [key]);
      assert.equal(n, 0);
      // The newer recording stays.
      assert.equal((await fetch(recent.recordingUrl)).status, 200);
      assert.equal(((await fx.a.api.get(`/v1/outbound-ivr/${recent.id}`)).body as Payload).recordingUrl, recent.recordingUrl);
    });
  },
);
