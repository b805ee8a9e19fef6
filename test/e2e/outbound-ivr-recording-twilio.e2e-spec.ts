import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { DataSource } from 'typeorm';
import { parseWavHeader } from '../../src/media/wav.js';
import { describeWithApp } from '../support/describe-with-app.js';
import { appWithFakeTwilio, TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN } from '../support/twilio-app.js';
import { createChannel, waitFor } from '../support/fixtures.js';
import { verifySignature } from '../support/webhook-receiver.js';
import { orphanRecordings, refuseRecordingWrites } from '../support/recordings.js';

const AUTH_TOKEN = TWILIO_AUTH_TOKEN;
const ACCOUNT_SID = TWILIO_ACCOUNT_SID;
/** Twilio calls the app back at its own address, chosen before it boots. */
const twilioApp = appWithFakeTwilio({ CALL_INTELLIGENCE_WAIT: '3s' });
/** A stored file's public URL: PUBLIC_BASE_URL, /media/, 192 random bits, the file name. */
const RECORDING_URL = /^http:\/\/127\.0\.0\.1:\d+\/media\/[A-Za-z0-9_-]{32}\/recording\.wav$/;

type Payload = Record<string, any>;

describeWithApp('Call recording through a Twilio-compatible voice API (API.md §16)', twilioApp.options, (fx) => {
  let channel: { id: string };
  let hooks = 0;

  const callThrough = async (extra: Record<string, unknown> = {}) => {
    const body = {
      channelId: channel.id,
      destinationNumber: '966501234567',
      audioFileUrl: 'https://media.example.com/question.wav',
      welcomeMessageFileUrl: 'https://media.example.com/welcome.wav',
      options: [{ digit: '1', description: 'Confirm' }],
      webhookUrl: fx.receiver.url(`/ivr/${++hooks}`, 'localhost'),
      ...extra,
    };
    const created = await fx.a.api.post('/v1/outbound-ivr', body);
    assert.equal(created.status, 200, created.text);
    const path = new URL(body.webhookUrl).pathname;
    const outcome = verifySignature(await waitFor(async () => fx.receiver.at(path)[0], 10_000, 'the outcome webhook'), fx.a.webhookSecret);
    return { id: created.body.id as string, created: created.body as Payload, outcome: outcome as Payload };
  };

  /** The record once its recording settled (stored, or known to be missing). */
  const settled = (id: string) =>
    waitFor(
      async () => {
        const record = (await fx.a.api.get(`/v1/outbound-ivr/${id}`)).body as Payload;
        return record.recordingUrl || record.recordingError ? record : null;
      },
      20_000,
      'the recording to settle',
    );

  const callWebhookOf = async (callId: string) =>
    verifySignature(
      await waitFor(async () => fx.receiver.at('/calls').find((r) => r.body.includes(callId)), 15_000, 'the Call Webhook'),
      fx.a.webhookSecret,
    ) as Payload;

  before(async () => {
    channel = await createChannel(fx.t, fx.a.workspaceId, {
      type: 1,
      whatsApp: undefined,
      voice: { provider: 'twilio', accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN, fromNumber: '+14155550100' },
      postCallWebhookUrl: fx.receiver.url('/calls'),
    });
  });

  it('asks Twilio for a dual-channel recording, fetches the WAV into storage, deletes it at Twilio, and gives its URL everywhere', async () => {
    fx.fake.expectCall({ answer: true, digits: ['1'], durationSeconds: 9 });
    const { id, created } = await callThrough({ record: true });
    assert.equal(created.record, true);
    const record = await settled(id);
    assert.equal(record.recordingError, null);
    assert.match(record.recordingUrl, RECORDING_URL);
    assert.equal(record.recordingDurationMs, 9000);

    const placed = fx.fake.requests.filter((r) => r.path.endsWith('/Calls.json')).at(-1)!;
    assert.equal(placed.form.get('Record'), 'true');
    assert.equal(placed.form.get('RecordingChannels'), 'dual');
    assert.equal(placed.form.get('RecordingStatusCallback'), `${twilioApp.app.publicBaseUrl}/v1/voice/twilio/calls/${id}/recording`);
    assert.equal(placed.form.get('RecordingStatusCallbackMethod'), 'POST');
    assert.equal(placed.form.get('RecordingStatusCallbackEvent'), 'completed absent');

    // Fetched as WAV with the channel's credentials, then deleted through the Recordings resource.
    const call = fx.fake.calls.at(-1)!;
    const recording = [...fx.fake.recordings.values()].find((r) => r.callSid === call.sid)!;
    const base = `/2010-04-01/Accounts/${ACCOUNT_SID}/Recordings/${recording.sid}`;
    // The delete at Twilio follows the stored recording's settling: awaited, not assumed done.
    const asked = await waitFor(
      async () => {
        const paths = fx.fake.requests.filter((r) => r.path.startsWith(base)).map((r) => `${r.method} ${r.path}`);
        return paths.some((p) => p.startsWith('DELETE')) ? paths : null;
      },
      10_000,
      'the recording deleted at Twilio',
    );
    assert.deepEqual(asked, [`GET ${base}.wav`, `DELETE ${base}.json`]);
    assert.equal(
      fx.fake.requests.find((r) => r.path === `${base}.wav`)!.authorization,
      `Basic ${Buffer.from(`${ACCOUNT_SID}:${AUTH_TOKEN}`).toString('base64')}`,
    );
    // Twilio's redirect to the signed media URL is followed, without our credentials.
    const media = fx.fake.requests.filter((r) => r.path.includes(`/signed-media/recordings/${recording.sid}.wav?`));
    assert.equal(media.length, 1);
    assert.equal(media[0].authorization, undefined);
    await waitFor(async () => recording.deleted, 5000, 'the recording deleted at Twilio');

    // The stored file: served without a token as audio/wav, the call's length, two channels.
    const file = await fetch(record.recordingUrl);
    assert.equal(file.status, 200);
    assert.equal(file.headers.get('content-type'), 'audio/wav');
    const bytes = Buffer.from(await file.arrayBuffer());
    assert.equal(bytes.length, recording.size);
    const wav = parseWavHeader(bytes);
    assert.deepEqual(
      { ...wav },
      { audioFormat: 1, channels: 2, sampleRate: 8000, bitsPerSample: 16, dataBytes: 9 * 32000, durationMs: 9000 },
    );
    assert.equal(wav.durationMs, record.callDurationSeconds * 1000);

    // The Call Webhook waited for the recording; the timeline's Call event has it too.
    const hook = await callWebhookOf(call.sid);
    assert.equal(hook.recordingUrl, record.recordingUrl);
    const conversation = (
      await fx.a.api.post('/v2/conversations/service-account/create', { channelId: channel.id, phoneNumber: '+966501234567' })
    ).body.conversation;
    const timeline = (await fx.a.api.get(`/v2/conversations/service-account/${conversation.id}/timeline`)).body.items as Payload[];
    const event = timeline.find((e) => e.sourceType === 1 && e.attachment?.callId === call.sid)!;
    assert.equal(event.attachment.recordingUrl, record.recordingUrl);
    // Another workspace's key or a wrong file name finds nothing.
    assert.equal((await fetch(record.recordingUrl.replace('recording.wav', 'other.wav'))).status, 404);
  });

  it("retries Twilio's 500 and 503 on the recording, then stores it", async () => {
    fx.fake.recordingFaults.push(500, 503);
    fx.fake.expectCall({ answer: true, digits: ['1'], durationSeconds: 4 });
    const { id } = await callThrough({ record: true });
    const record = await settled(id);
    assert.equal(record.recordingError, null);
    assert.equal(record.recordingDurationMs, 4000);
    assert.equal(fx.fake.recordingFaults.length, 0);
    const call = fx.fake.calls.at(-1)!;
    const recording = [...fx.fake.recordings.values()].find((r) => r.callSid === call.sid)!;
    await waitFor(async () => recording.deleted, 10_000, 'the recording deleted at Twilio');
  });

  it('a recording Twilio answers 404 for (its 20404 body) leaves the call without one, saying why, and the Call Webhook goes', async () => {
    fx.fake.recordingFaults.push(404);
    fx.fake.expectCall({ answer: true, digits: ['1'], durationSeconds: 3 });
    const { id } = await callThrough({ record: true });
    const record = await settled(id);
    assert.equal(record.recordingUrl, null);
    assert.match(
      record.recordingError,
      /404 \(code 20404\): The requested resource \/2010-04-01\/Accounts\/.*\/Recordings\/RE[0-9a-f]{32}\.wav was not found/,
    );
    const hook = await callWebhookOf(record.callId);
    assert.equal(hook.recordingUrl, null);
  });

  it('a recording Twilio reports absent ends as recordingError; one never reported lets the Call Webhook go after CALL_INTELLIGENCE_WAIT', async () => {
    fx.fake.expectCall({ answer: true, digits: ['1'], durationSeconds: 1, recording: { status: 'absent' } });
    const absent = await settled((await callThrough({ record: true })).id);
    assert.match(absent.recordingError, /no recording \(absent, error 16101\)/);
    assert.equal((await callWebhookOf(absent.callId)).recordingUrl, null);

    fx.fake.expectCall({ answer: true, digits: ['1'], durationSeconds: 2, recording: { status: 'never' } });
    const { id, outcome } = await callThrough({ record: true });
    assert.equal(outcome.recordingUrl, null);
    const ended = Date.now();
    const record = (await fx.a.api.get(`/v1/outbound-ivr/${id}`)).body as Payload;
    const hook = await callWebhookOf(record.callId);
    assert.ok(Date.now() - ended >= 2000, 'the Call Webhook waited for the recording');
    assert.equal(hook.recordingUrl, null);
  });

  it("a recording reported after the Call Webhook's wait reaches the record and the timeline's Call event", async () => {
    // CALL_INTELLIGENCE_WAIT is 3 s here: the Call Webhook goes without the recording.
    fx.fake.expectCall({ answer: true, digits: ['1'], durationSeconds: 2, recording: { delayMs: 4500 } });
    const { id } = await callThrough({ record: true });
    const callId = fx.fake.calls.at(-1)!.sid;
    assert.equal((await callWebhookOf(callId)).recordingUrl, null);
    const record = await settled(id);
    assert.match(record.recordingUrl, RECORDING_URL);
    const conversation = (
      await fx.a.api.post('/v2/conversations/service-account/create', { channelId: channel.id, phoneNumber: '+966501234567' })
    ).body.conversation;
    const timeline = (await fx.a.api.get(`/v2/conversations/service-account/${conversation.id}/timeline`)).body.items as Payload[];
    const event = timeline.find((e) => e.sourceType === 1 && e.attachment?.callId === callId)!;
    assert.equal(event.attachment.recordingUrl, record.recordingUrl);
  });

  it('a stored file whose call cannot take it (the database refuses) is removed; the retry stores one copy', async () => {
    const db = fx.t.app.get(DataSource);
    const refusal = await refuseRecordingWrites(db);
    const downloads = () => fx.fake.requests.filter((r) => r.method === 'GET' && /\/Recordings\/RE[0-9a-f]+\.wav$/.test(r.path)).length;
    const before = downloads();
    try {
      fx.fake.expectCall({ answer: true, digits: ['1'], durationSeconds: 2 });
      const { id } = await callThrough({ record: true });
      // Two attempts each stored the file and failed to record it.
      await waitFor(async () => downloads() - before >= 2 || null, 15_000, 'two downloads');
      await refusal.release();
      const record = await settled(id);
      assert.match(record.recordingUrl, RECORDING_URL);
    } finally {
      await refusal.release();
    }
    assert.equal(await orphanRecordings(db, fx.a.workspaceId), 0);
    const recording = [...fx.fake.recordings.values()].find((r) => r.callSid === fx.fake.calls.at(-1)!.sid)!;
    await waitFor(async () => recording.deleted, 10_000, 'the recording deleted at Twilio once stored');
  });

  it('a recording that fails every attempt is never deleted at Twilio, and the call names it in recordingError', async () => {
    // 500 on each of the job's five attempts (backoff 1 s, 3 s, 7 s, 15 s).
    fx.fake.recordingFaults.push(500, 500, 500, 500, 500);
    fx.fake.expectCall({ answer: true, digits: ['1'], durationSeconds: 2 });
    const { id } = await callThrough({ record: true });
    const record = await waitFor(
      async () => {
        const found = (await fx.a.api.get(`/v1/outbound-ivr/${id}`)).body as Payload;
        return found.recordingError ? found : null;
      },
      45_000,
      'the last attempt',
    );
    const recording = [...fx.fake.recordings.values()].find((r) => r.callSid === fx.fake.calls.at(-1)!.sid)!;
    assert.equal(fx.fake.recordingFaults.length, 0);
    assert.equal(record.recordingUrl, null);
    assert.match(record.recordingError, new RegExp(`The recording could not be fetched: .*500.*kept at the provider as ${recording.sid}`));
    assert.equal(recording.deleted, false);
    assert.equal(fx.fake.requests.filter((r) => r.method === 'DELETE' && r.path.includes(recording.sid)).length, 0);
  });

  it('plays the recording announcement before everything else; an unrecorded call neither records nor announces', async () => {
    fx.fake.expectCall({ answer: true, digits: ['1'], durationSeconds: 2 });
    await callThrough({ record: true, recordingAnnouncementAudioUrl: 'https://media.example.com/recorded.wav' });
    assert.match(
      fx.fake.calls.at(-1)!.twiml[0],
      /^<\?xml[^>]*><Response><Play>https:\/\/media\.example\.com\/recorded\.wav<\/Play><Play>https:\/\/media\.example\.com\/welcome\.wav<\/Play><Gather/,
    );

    fx.fake.expectCall({ answer: true, digits: ['1'], durationSeconds: 2 });
    const { id, outcome } = await callThrough({ recordingAnnouncementAudioUrl: 'https://media.example.com/recorded.wav' });
    assert.equal(outcome.recordingUrl, null);
    const placed = fx.fake.requests.filter((r) => r.path.endsWith('/Calls.json')).at(-1)!;
    assert.equal(placed.form.get('Record'), null);
    assert.doesNotMatch(fx.fake.calls.at(-1)!.twiml[0], /recorded\.wav/);
    const record = (await fx.a.api.get(`/v1/outbound-ivr/${id}`)).body as Payload;
    assert.equal(record.record, false);
    assert.equal(record.recordingAnnouncementAudioUrl, null);
    // Not recorded: the Call Webhook does not wait.
    assert.equal((await callWebhookOf(record.callId)).recordingUrl, null);
  });
});
