import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeWithApp } from '../support/describe-with-app.js';
import { createChannel, waitFor } from '../support/fixtures.js';
import { verifySignature, WebhookReceiver } from '../support/webhook-receiver.js';
import { parseWavHeader } from '../../src/media/wav.js';
import { CallPlacer } from '../../src/outbound-ivr/call-placer.service.js';
import { CallSweeper } from '../../src/outbound-ivr/call-sweeper.service.js';

const OFFSET_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/;
const AUDIO = 'https://media.example.com/question.wav';

describeWithApp(
  'Outbound IVR with the sandbox voice provider',
  {
    peers: { receiver: () => WebhookReceiver.start() },
    env: {
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      RATE_LIMIT_REQUESTS_PER_MINUTE: '100000',
      RATE_LIMIT_IVR_CALLS_PER_SECOND: '1000',
    },
  },
  (fx) => {
    let callNumber = 0;

    /** A voice channel whose sandbox plays calls out as `sandbox` says, with its own Call Webhook path. */
    const voiceChannel = async (sandbox: Record<string, unknown>) => {
      const path = `/calls/${++callNumber}`;
      const channel = await createChannel(fx.t, fx.a.workspaceId, {
        type: 1,
        whatsApp: undefined,
        voice: { provider: 'sandbox', fromNumber: '+14155550100', sandbox: { ringMs: 0, talkMs: 0, ...sandbox } },
        postCallWebhookUrl: fx.receiver.url(path),
      });
      return { id: channel.id as string, callWebhookPath: path };
    };

    const request = (channelId: string, extra: Record<string, unknown> = {}) => ({
      channelId,
      destinationNumber: '966501234567',
      audioFileUrl: AUDIO,
      options: [
        { digit: '1', description: 'Confirm' },
        { digit: '2', description: 'Cancel', responseMessageFileUrl: 'https://media.example.com/cancelled.wav' },
      ],
      webhookUrl: fx.receiver.url(`/ivr/${++callNumber}`),
      maxAudioRetries: 1,
      ...extra,
    });

    const finished = (id: string, ws = fx.a) =>
      waitFor(
        async () => {
          const res = await ws.api.get(`/v1/outbound-ivr/${id}`);
          return res.body.status >= 4 ? res.body : null;
        },
        10_000,
        `call ${id} to finish`,
      );

    /** Places a call, waits for its end and for the signed outcome webhook; returns both. */
    const callThrough = async (channelId: string, extra: Record<string, unknown> = {}) => {
      const body = request(channelId, extra);
      const created = await fx.a.api.post('/v1/outbound-ivr', body);
      assert.equal(created.status, 200, created.text);
      const record = await finished(created.body.id);
      const path = new URL(body.webhookUrl).pathname;
      const delivery = await waitFor(async () => fx.receiver.at(path)[0], 10_000, 'the outcome webhook');
      assert.equal(delivery.headers['webhook-event'], 'outbound_ivr.completed');
      const payload = verifySignature(delivery, fx.a.webhookSecret) as Record<string, unknown>;
      return { record, payload };
    };

    it('answers the specification record on creation: status 0, result 0, the nulls, a + number, offset timestamps', async () => {
      const channel = await voiceChannel({ ringMs: 60_000 });
      const res = await fx.a.api.post('/v1/outbound-ivr', {
        ChannelId: channel.id,
        ExternalId: 'order-1001',
        DestinationNumber: '966501234567',
        AudioFileUrl: AUDIO,
        WelcomeMessageFileUrl: 'https://media.example.com/welcome.wav',
        SuccessMessageFileUrl: null,
        FailedMessageFileUrl: 'https://media.example.com/failed.wav',
        Options: [{ Digit: '1', Description: 'Confirm', ResponseMessageFileUrl: null }],
        WebhookUrl: 'https://hooks.example.com/ivr',
        MaxAudioRetries: 3,
        InputTimeoutMs: 5000,
        DigitTimeoutMs: 2000,
      });
      assert.equal(res.status, 200, res.text);
      const r = res.body;
      assert.match(r.id, /^[0-9a-f-]{36}$/);
      assert.deepEqual(
        { ...r, id: undefined, creationTime: undefined },
        {
          id: undefined,
          workspaceId: fx.a.workspaceId,
          channelId: channel.id,
          externalId: 'order-1001',
          destinationNumber: '+966501234567',
          audioFileUrl: AUDIO,
          ttsText: null,
          ttsVoice: 1,
          audioType: 1,
          options: [{ digit: '1', description: 'Confirm' }],
          webhookUrl: 'https://hooks.example.com/ivr',
          direction: 2,
          maxAudioRetries: 3,
          inputTimeoutMs: 5000,
          digitTimeoutMs: 2000,
          status: 0,
          result: 0,
          pressedDigit: null,
          initiatedAt: null,
          ringingAt: null,
          answeredAt: null,
          completedAt: null,
          callId: null,
          errorMessage: null,
          hangupCause: null,
          creationTime: undefined,
          answers: [],
          callDurationSeconds: null,
          flowId: null,
          scheduledFor: null,
          machineDetection: 'Off',
          voicemailAudioFileUrl: null,
          voicemailTtsText: null,
          answeredBy: null,
          record: false,
          recordingAnnouncementAudioUrl: null,
          recordingAnnouncementTtsText: null,
          recordingUrl: null,
          recordingDurationMs: null,
          recordingError: null,
          awaitingPermission: false,
          permissionDeadline: null,
        },
      );
      assert.match(r.creationTime, OFFSET_TIMESTAMP);
      await fx.a.api.post(`/v1/outbound-ivr/${r.id}/cancel`, {});
    });

    it('applies the defaults: 2 retries, 6000 ms input, 3000 ms digit timeout, Female voice; TextToSpeech for ttsText', async () => {
      const channel = await voiceChannel({ ringMs: 60_000 });
      const res = await fx.a.api.post('/v1/outbound-ivr', {
        channelId: channel.id,
        destinationNumber: '+966501234567',
        ttsText: 'Press 1 to confirm.',
        ttsVoice: 'Male',
        options: [{ digit: '1', description: 'Confirm' }],
        webhookUrl: 'https://hooks.example.com/ivr',
      });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.maxAudioRetries, 2);
      assert.equal(res.body.inputTimeoutMs, 6000);
      assert.equal(res.body.digitTimeoutMs, 3000);
      assert.equal(res.body.ttsVoice, 2);
      assert.equal(res.body.audioType, 2);
      const numeric = await fx.a.api.post('/v1/outbound-ivr', {
        ...request(channel.id),
        audioFileUrl: undefined,
        ttsText: 'Hi',
        ttsVoice: '1',
      });
      assert.equal(numeric.status, 200, numeric.text);
      assert.equal(numeric.body.ttsVoice, 1);
      await fx.a.api.post(`/v1/outbound-ivr/${numeric.body.id}/cancel`, {});
      assert.equal(res.body.audioFileUrl, null);
      assert.equal(res.body.externalId, null);
      await fx.a.api.post(`/v1/outbound-ivr/${res.body.id}/cancel`, {});
    });

    it('refuses each invalid request with a 400 naming the field', async () => {
      const channel = await voiceChannel({});
      const cases: Array<[string, Record<string, unknown>, string]> = [
        ['no channelId', { channelId: undefined }, 'channelId'],
        ['a bad number', { destinationNumber: '12' }, 'destinationNumber'],
        ['no webhookUrl', { webhookUrl: undefined }, 'webhookUrl'],
        ['a webhookUrl that is not http', { webhookUrl: 'ftp://hooks.example.com/x' }, 'webhookUrl'],
        ['both audio and speech', { ttsText: 'Hello' }, 'audioFileUrl'],
        ['neither audio nor speech', { audioFileUrl: undefined }, 'audioFileUrl'],
        ['no options', { options: [] }, 'options'],
        ['13 options', { options: Array.from({ length: 13 }, (_, i) => ({ digit: String(i % 10), description: 'x' })) }, 'options'],
        [
          'a repeated digit',
          {
            options: [
              { digit: '1', description: 'a' },
              { digit: '1', description: 'b' },
            ],
          },
          'options',
        ],
        ['a digit that is not a key', { options: [{ digit: 'A', description: 'a' }] }, 'options[0].digit'],
        ['maxAudioRetries 6', { maxAudioRetries: 6 }, 'maxAudioRetries'],
        ['maxAudioRetries -1', { maxAudioRetries: -1 }, 'maxAudioRetries'],
        ['inputTimeoutMs 999', { inputTimeoutMs: 999 }, 'inputTimeoutMs'],
        ['inputTimeoutMs 30001', { inputTimeoutMs: 30001 }, 'inputTimeoutMs'],
        ['digitTimeoutMs 10001', { digitTimeoutMs: 10001 }, 'digitTimeoutMs'],
        ['an externalId of 257 characters', { externalId: 'x'.repeat(257) }, 'externalId'],
        ['blank ttsText', { audioFileUrl: undefined, ttsText: '   ' }, 'ttsText'],
        ['ttsText of 5001 characters', { audioFileUrl: undefined, ttsText: 'x'.repeat(5001) }, 'ttsText'],
        ['an unknown voice', { audioFileUrl: undefined, ttsText: 'Hi', ttsVoice: 'Robot' }, 'ttsVoice'],
        ['a voice number out of range', { audioFileUrl: undefined, ttsText: 'Hi', ttsVoice: '3' }, 'ttsVoice'],
        ['a flowId with options', { flowId: '00000000-0000-4000-8000-000000000000', audioFileUrl: undefined }, 'options'],
      ];
      for (const [what, change, member] of cases) {
        const res = await fx.a.api.post('/v1/outbound-ivr', { ...request(channel.id), ...change });
        assert.equal(res.status, 400, `${what}: ${res.text}`);
        const members = (res.body.error.validationErrors as Array<{ members: string[] }>).flatMap((e) => e.members);
        assert.ok(
          members.some((m) => m === member || m.startsWith(`${member}.`) || m.startsWith(`${member}[`)),
          `${what}: ${JSON.stringify(members)}`,
        );
      }
      const list = await fx.a.api.get(`/v1/outbound-ivr?MaxResultCount=1000`);
      assert.equal(list.body.items.filter((r: { channelId: string }) => r.channelId === channel.id).length, 0, 'nothing was written');
    });

    it('answers ChannelNotFoundError for an unknown, foreign or voice-less channel', async () => {
      const waOnly = await createChannel(fx.t, fx.a.workspaceId, { type: 2, voice: undefined });
      const foreign = await createChannel(fx.t, fx.b.workspaceId);
      for (const channelId of ['5f0c7a43-0000-4000-8000-000000000001', waOnly.id, foreign.id]) {
        const res = await fx.a.api.post('/v1/outbound-ivr', request(channelId));
        assert.equal(res.status, 404, res.text);
        assert.equal(res.body.error.code, 'Channels:ChannelNotFound');
      }
    });

    it('a pressed digit: Completed, DigitPressed, timestamps in order, signed outcome, Call Webhook and timeline event', async () => {
      const channel = await voiceChannel({ pressDigits: ['1'] });
      const { record, payload } = await callThrough(channel.id, { externalId: 'digit-1' });
      assert.equal(record.status, 4);
      assert.equal(record.result, 1);
      assert.equal(record.pressedDigit, '1');
      assert.match(record.callId, /^SB[0-9a-f]{32}$/);
      for (const field of ['initiatedAt', 'ringingAt', 'answeredAt', 'completedAt']) assert.match(record[field], OFFSET_TIMESTAMP, field);
      assert.ok(record.initiatedAt <= record.ringingAt && record.ringingAt <= record.answeredAt && record.answeredAt <= record.completedAt);
      assert.equal(record.hangupCause, 'NORMAL_CLEARING');
      assert.equal(record.errorMessage, null);
      assert.equal(record.callDurationSeconds, 0);
      assert.deepEqual(Object.keys(payload).sort(), [
        'answeredAt',
        'answeredBy',
        'answers',
        'callDurationSeconds',
        'callId',
        'channelId',
        'completedAt',
        'creationTime',
        'destinationNumber',
        'errorMessage',
        'externalId',
        'hangupCause',
        'id',
        'initiatedAt',
        'pressedDigit',
        'recordingUrl',
        'result',
        'ringingAt',
        'status',
        'workspaceId',
      ]);
      assert.equal(payload.recordingUrl, null);
      assert.equal(payload.id, record.id);
      assert.equal(payload.externalId, 'digit-1');
      assert.equal(payload.status, 4);
      assert.equal(payload.result, 1);
      assert.equal(payload.pressedDigit, '1');
      assert.equal(payload.completedAt, record.completedAt);

      const callHook = await waitFor(async () => fx.receiver.at(channel.callWebhookPath)[0], 10_000, 'the Call Webhook');
      assert.equal(callHook.headers['webhook-event'], 'call');
      const call = verifySignature(callHook, fx.a.webhookSecret) as Record<string, unknown>;
      assert.equal(call.callId, record.callId);
      assert.equal(call.status, 1);
      assert.equal(call.type, 2);
      assert.equal(call.callerNumber, '+14155550100');
      assert.equal(call.calleeNumber, '+966501234567');
      assert.equal(call.contactNumber, '+966501234567');
      assert.equal(call.callLength, '00:00:00');
      assert.equal(typeof call.contactId, 'string');

      const conversation = (
        await fx.a.api.post('/v2/conversations/service-account/create', { channelId: channel.id, phoneNumber: '+966501234567' })
      ).body.conversation;
      const timeline = await fx.a.api.get(`/v2/conversations/service-account/${conversation.id}/timeline`);
      assert.equal(timeline.status, 200, timeline.text);
      const event = timeline.body.items.find((e: { sourceType: number }) => e.sourceType === 1);
      assert.ok(event, JSON.stringify(timeline.body.items));
      assert.equal(event.direction, 2);
      assert.equal(event.durationOrSize, '00:00:00');
    });

    it('an invalid digit and then a valid one: DigitPressed with the second digit', async () => {
      const channel = await voiceChannel({ pressDigits: ['9', '2'] });
      const { record } = await callThrough(channel.id);
      assert.equal(record.status, 4);
      assert.equal(record.result, 1);
      assert.equal(record.pressedDigit, '2');
    });

    it('invalid digits past the retries: InvalidInput', async () => {
      const channel = await voiceChannel({ pressDigits: ['9', '8', '1'] });
      const { record } = await callThrough(channel.id, { maxAudioRetries: 1 });
      assert.equal(record.status, 4);
      assert.equal(record.result, 3);
      assert.equal(record.pressedDigit, null);
    });

    it('silence past the retries: NoInput', async () => {
      const channel = await voiceChannel({ pressDigits: [] });
      const { record, payload } = await callThrough(channel.id, { maxAudioRetries: 1 });
      assert.equal(record.status, 4);
      assert.equal(record.result, 2);
      assert.equal(payload.result, 2);
    });

    it('no answer: NoAnswer, NotAnswered, with a hang-up cause and message; the Call Webhook says NoAnswer', async () => {
      const channel = await voiceChannel({ answer: false });
      const { record } = await callThrough(channel.id);
      assert.equal(record.status, 5);
      assert.equal(record.result, 4);
      assert.equal(record.answeredAt, null);
      assert.equal(record.hangupCause, 'NO_ANSWER');
      assert.equal(record.errorMessage, 'The destination did not answer.');
      const call = await waitFor(async () => fx.receiver.at(channel.callWebhookPath)[0], 10_000, 'the Call Webhook');
      assert.equal((verifySignature(call, fx.a.webhookSecret) as { status: number }).status, 5);
    });

    it('busy: Busy, DestinationBusy', async () => {
      const channel = await voiceChannel({ answer: 'busy' });
      const { record } = await callThrough(channel.id);
      assert.equal(record.status, 6);
      assert.equal(record.result, 5);
      assert.equal(record.hangupCause, 'USER_BUSY');
    });

    it('cancel while ringing: Cancelled with its outcome webhook; a finished call cannot be cancelled (409)', async () => {
      const channel = await voiceChannel({ ringMs: 60_000 });
      const body = request(channel.id);
      const created = await fx.a.api.post('/v1/outbound-ivr', body);
      await waitFor(async () => (await fx.a.api.get(`/v1/outbound-ivr/${created.body.id}`)).body.status === 2, 10_000, 'ringing');
      const cancelled = await fx.a.api.post(`/v1/outbound-ivr/${created.body.id}/cancel`, {});
      assert.equal(cancelled.status, 200, cancelled.text);
      assert.equal(cancelled.body.status, 8);
      assert.equal(cancelled.body.result, 7);
      const delivery = await waitFor(async () => fx.receiver.at(new URL(body.webhookUrl).pathname)[0], 10_000, 'the outcome webhook');
      assert.equal((verifySignature(delivery, fx.a.webhookSecret) as { status: number }).status, 8);
      const again = await fx.a.api.post(`/v1/outbound-ivr/${created.body.id}/cancel`, {});
      assert.equal(again.status, 409);
      assert.equal(again.body.error.code, 'OutboundIvr:AlreadyFinished');
    });

    it('a repeated externalId returns the first record and places no second call', async () => {
      const channel = await voiceChannel({ pressDigits: ['1'] });
      const body = request(channel.id, { externalId: 'dup-7' });
      const first = await fx.a.api.post('/v1/outbound-ivr', body);
      const second = await fx.a.api.post('/v1/outbound-ivr', { ...body, destinationNumber: '966500000000' });
      assert.equal(second.status, 200);
      assert.equal(second.body.id, first.body.id);
      await finished(first.body.id);
      await waitFor(async () => fx.receiver.at(new URL(body.webhookUrl).pathname)[0], 10_000, 'the outcome webhook');
      const listed = await fx.a.api.get('/v1/outbound-ivr?ExternalId=dup-7');
      assert.equal(listed.body.totalCount, 1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(fx.receiver.at(new URL(body.webhookUrl).pathname).length, 1, 'one call, one outcome');

      const racing = request(channel.id, { externalId: 'race-8' });
      const answers = await Promise.all(Array.from({ length: 6 }, () => fx.a.api.post('/v1/outbound-ivr', racing)));
      assert.deepEqual(new Set(answers.map((r) => r.status)), new Set([200]));
      assert.equal(new Set(answers.map((r) => r.body.id)).size, 1, 'six racing requests, one record');
      assert.equal((await fx.a.api.get('/v1/outbound-ivr?ExternalId=race-8')).body.totalCount, 1);
    });

    it('runs a saved flow: one answer per question, the last digit as pressedDigit, the version it started with', async () => {
      const flow = await fx.a.api.post('/v1/outbound-ivr-flows', {
        name: 'Order survey',
        startStepId: 'hello',
        steps: [
          { id: 'hello', type: 'Play', props: { audioFileUrl: 'https://media.example.com/hello.wav', nextStepId: 'size' } },
          {
            id: 'size',
            type: 'Question',
            props: {
              ttsText: 'Press 1 for small, 2 for large.',
              options: [
                { digit: '1', description: 'Small', nextStepId: 'color' },
                { digit: '2', description: 'Large', nextStepId: 'bye' },
              ],
            },
          },
          {
            id: 'color',
            type: 'Question',
            props: {
              audioFileUrl: AUDIO,
              options: [
                { digit: '1', description: 'Red' },
                { digit: '2', description: 'Blue' },
              ],
            },
          },
          { id: 'bye', type: 'Hangup', props: {} },
        ],
      });
      assert.equal(flow.status, 200, flow.text);
      const channel = await voiceChannel({ pressDigits: ['1', '2'], ringMs: 300 });
      const body = { ...request(channel.id), audioFileUrl: undefined, options: undefined, flowId: flow.body.id };
      const created = await fx.a.api.post('/v1/outbound-ivr', body);
      assert.equal(created.status, 200, created.text);
      assert.equal(created.body.flowId, flow.body.id);
      assert.equal(created.body.audioType, null);
      // An update while the call rings does not change the call: it keeps version 1.
      const updated = await fx.a.api.put(`/v1/outbound-ivr-flows/${flow.body.id}`, {
        name: 'Order survey v2',
        startStepId: 'bye',
        steps: [{ id: 'bye', type: 'Hangup', props: {} }],
      });
      assert.equal(updated.status, 200, updated.text);
      assert.equal(updated.body.version, 2);
      const record = await finished(created.body.id);
      assert.equal(record.status, 4, JSON.stringify(record));
      assert.equal(record.result, 1);
      assert.equal(record.pressedDigit, '2');
      assert.deepEqual(
        record.answers.map((x: Record<string, unknown>) => [x.stepId, x.prompt, x.digit, x.description]),
        [
          ['size', 'Press 1 for small, 2 for large.', '1', 'Small'],
          ['color', AUDIO, '2', 'Blue'],
        ],
      );
      for (const answer of record.answers) assert.match(answer.answeredAt, OFFSET_TIMESTAMP);
      const delivery = await waitFor(async () => fx.receiver.at(new URL(body.webhookUrl).pathname)[0], 10_000, 'the outcome webhook');
      const payload = verifySignature(delivery, fx.a.webhookSecret) as { answers: unknown[] };
      assert.deepEqual(payload.answers, record.answers);
    });

    it('stops a looping flow after 50 steps, and refuses an unknown flowId', async () => {
      const flow = await fx.a.api.post('/v1/outbound-ivr-flows', {
        name: 'Loop',
        startStepId: 'a',
        steps: [
          { id: 'a', type: 'Play', props: { audioFileUrl: AUDIO, nextStepId: 'b' } },
          { id: 'b', type: 'Play', props: { audioFileUrl: AUDIO, nextStepId: 'a' } },
        ],
      });
      assert.equal(flow.status, 200, flow.text);
      const channel = await voiceChannel({});
      const { record } = await callThrough(channel.id, { audioFileUrl: undefined, options: undefined, flowId: flow.body.id });
      assert.equal(record.status, 4);
      assert.equal(record.result, 0);
      assert.equal(record.errorMessage, 'The flow was stopped after 50 steps.');

      const unknown = await fx.a.api.post('/v1/outbound-ivr', {
        ...request(channel.id),
        audioFileUrl: undefined,
        options: undefined,
        flowId: '00000000-0000-4000-8000-000000000000',
      });
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.error.code, 'OutboundIvr:FlowNotFound');
    });

    it('speaks ttsText: the synthesized 8 kHz WAV becomes audioFileUrl, served without a token', async () => {
      const channel = await voiceChannel({ pressDigits: ['1'] });
      const { record } = await callThrough(channel.id, { audioFileUrl: undefined, ttsText: 'Press 1 to confirm your order.', ttsVoice: 2 });
      assert.equal(record.result, 1);
      assert.equal(record.audioType, 2);
      assert.equal(record.ttsVoice, 2);
      assert.match(record.audioFileUrl, /\/media\/[^/]+\/speech-male\.wav$/);
      const wav = await fetch(`${fx.t.baseUrl}${new URL(record.audioFileUrl).pathname}`);
      assert.equal(wav.status, 200);
      const format = parseWavHeader(Buffer.from(await wav.arrayBuffer()));
      assert.deepEqual([format.audioFormat, format.channels, format.sampleRate, format.bitsPerSample], [1, 1, 8000, 16]);
    });

    it('a sandbox call whose worker died ends Failed when its job runs again; the sweeper ends calls with no final report', async () => {
      const channel = await voiceChannel({ ringMs: 60_000 });
      const first = await fx.a.api.post('/v1/outbound-ivr', request(channel.id));
      await waitFor(async () => (await fx.a.api.get(`/v1/outbound-ivr/${first.body.id}`)).body.status === 2, 10_000, 'ringing');
      await fx.t.app.get(CallPlacer).place({ id: first.body.id, workspaceId: fx.a.workspaceId }, false);
      const interrupted = await finished(first.body.id);
      assert.deepEqual([interrupted.status, interrupted.result], [7, 6]);
      assert.equal(interrupted.errorMessage, 'The call was interrupted by a worker restart.');

      const second = await fx.a.api.post('/v1/outbound-ivr', request(channel.id));
      await waitFor(async () => (await fx.a.api.get(`/v1/outbound-ivr/${second.body.id}`)).body.status === 2, 10_000, 'ringing');
      assert.equal(await fx.t.app.get(CallSweeper).sweep(60_000), 0, 'not stale yet');
      assert.ok((await fx.t.app.get(CallSweeper).sweep(0)) >= 1);
      const swept = await finished(second.body.id);
      assert.deepEqual([swept.status, swept.hangupCause], [7, 'NO_FINAL_REPORT']);
    });

    it('replays a repeated Idempotency-Key without a second call', async () => {
      const channel = await voiceChannel({ pressDigits: ['1'] });
      const body = request(channel.id);
      const first = await fx.a.api.post('/v1/outbound-ivr', body, { 'Idempotency-Key': 'ivr-key-1' });
      const second = await fx.a.api.post('/v1/outbound-ivr', body, { 'Idempotency-Key': 'ivr-key-1' });
      assert.equal(first.status, 200, first.text);
      assert.deepEqual(second.body, first.body);
      await finished(first.body.id);
      const listed = await fx.a.api.get('/v1/outbound-ivr?MaxResultCount=1000');
      assert.equal(listed.body.items.filter((r: { channelId: string }) => r.channelId === channel.id).length, 1);
    });

    it('keeps workspaces apart: another workspace gets 404 and lists none', async () => {
      const channel = await voiceChannel({ ringMs: 60_000 });
      const created = await fx.a.api.post('/v1/outbound-ivr', request(channel.id));
      assert.equal((await fx.b.api.get(`/v1/outbound-ivr/${created.body.id}`)).status, 404);
      assert.equal((await fx.b.api.post(`/v1/outbound-ivr/${created.body.id}/cancel`, {})).status, 404);
      assert.equal((await fx.b.api.get('/v1/outbound-ivr')).body.totalCount, 0);
      await waitFor(async () => (await fx.a.api.get(`/v1/outbound-ivr/${created.body.id}`)).body.status === 2, 10_000, 'ringing');
      const own = await fx.a.api.get('/v1/outbound-ivr?Status=2&MaxResultCount=1000');
      assert.equal(own.status, 200);
      assert.ok(own.body.items.some((r: { id: string }) => r.id === created.body.id));
      assert.equal((await fx.a.api.get('/v1/outbound-ivr?Status=Ringing')).status, 400);
      await fx.a.api.post(`/v1/outbound-ivr/${created.body.id}/cancel`, {});
    });
  },
);
