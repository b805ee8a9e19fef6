import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeWithApp } from '../support/describe-with-app.js';
import { FakeOpenAi } from '../support/fake-openai.js';
import { createChannel, waitFor } from '../support/fixtures.js';
import { freePort } from '../support/free-port.js';
import { verifySignature, WebhookReceiver } from '../support/webhook-receiver.js';

type Payload = Record<string, any>;

const WAIT_MS = 8000;
const BUSINESS = [
  { start: 0.2, end: 2.1, text: 'Your order is ready.' },
  { start: 2.3, end: 4.0, text: 'Press 1 to collect it today.' },
];
const CUSTOMER = [{ start: 4.4, end: 4.9, text: '(tone 1)' }];
const ANSWER = {
  summary: 'The customer confirmed collecting the order today.',
  sentiment: 'Positive',
  evaluationCriteriaResult: [{ name: 'Confirmed', passed: true, reason: 'The customer pressed 1.' }],
};

/**
 * Recorded calls analysed through OpenAI-compatible providers (API.md §16): the sandbox records
 * the call, the worker sends each channel of the stored WAV to the fake's `/audio/transcriptions`,
 * then one `/chat/completions` with a JSON schema; the Call Webhook waits for the analysis at most
 * CALL_INTELLIGENCE_WAIT, a later one goes out as `call.analysis_completed`; provider errors are
 * retried, and never hold up the outcome webhook.
 */
describeWithApp(
  'Call intelligence: transcripts, summaries, sentiment and criteria of recorded calls',
  {
    peers: {
      receiver: () => WebhookReceiver.start(),
      openai: async () => {
        const fake = await FakeOpenAi.start();
        return Object.assign(fake, { close: () => fake.stop() });
      },
    },
    env: async () => {
      const port = await freePort();
      return {
        PORT: String(port),
        PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        RATE_LIMIT_IVR_CALLS_PER_SECOND: '1000',
        CALL_INTELLIGENCE_WAIT: `${WAIT_MS}ms`,
      };
    },
  },
  (fx) => {
    let channelId: string;
    let endpointSecret: string;
    let seq = 0;

    const setProviders = async (on: boolean) => {
      const provider = (model: string) =>
        on ? { provider: 'openai-compatible', baseUrl: fx.openai.url, model, apiKeyRef: 'sk-test' } : { provider: 'none' };
      const res = await fx.a.api.request('PUT', '/v1/call-intelligence', {
        json: {
          transcription: provider('whisper-1'),
          summary: { ...provider('gpt-4o-mini'), prompt: on ? 'Summarise the call for the sales team.' : undefined },
          evaluationCriteria: on ? [{ name: 'Confirmed', description: 'The customer confirmed the collection.' }] : [],
        },
      });
      assert.equal(res.status, 200, res.text);
    };

    /** A recorded call: its record id and where its outcome webhook goes. */
    const recordedCall = async () => {
      const outcome = `/outcome/${++seq}`;
      const created = await fx.a.api.post('/v1/outbound-ivr', {
        channelId,
        destinationNumber: `96650700${String(1000 + seq)}`,
        ttsText: 'Your order is ready. Press 1 to collect it today.',
        options: [{ digit: '1', description: 'Today' }],
        webhookUrl: fx.receiver.url(outcome),
        record: true,
      });
      assert.equal(created.status, 200, created.text);
      return { id: created.body.id as string, outcome };
    };

    /** The record once the call finished and its recording settled (the sandbox stores it after the outcome). */
    const finishedRecord = (id: string) =>
      waitFor(
        async () => {
          const res = await fx.a.api.get(`/v1/outbound-ivr/${id}`);
          return res.body.status >= 4 && (res.body.recordingUrl || res.body.recordingError) ? res.body : null;
        },
        20_000,
        `call ${id} to finish`,
      );

    const callWebhook = async (callId: string, withinMs = 20_000) => {
      const delivery = await waitFor(
        async () => fx.receiver.at('/calls').find((d) => (verifySignature(d, fx.a.webhookSecret) as Payload).callId === callId),
        withinMs,
        `the Call Webhook of ${callId}`,
      );
      return { payload: verifySignature(delivery, fx.a.webhookSecret) as Payload, receivedAt: delivery.receivedAt };
    };

    const transcriptOf = (id: string) => fx.a.api.get(`/v1/outbound-ivr/${id}/transcript`);

    before(async () => {
      const channel = await createChannel(fx.t, fx.a.workspaceId, {
        type: 1,
        whatsApp: undefined,
        voice: { provider: 'sandbox', fromNumber: '+14155550100', sandbox: { ringMs: 0, talkMs: 300, pressDigits: ['1'] } },
        postCallWebhookUrl: fx.receiver.url('/calls'),
      });
      channelId = channel.id;
      const endpoint = await fx.a.api.post('/v1/webhook-endpoints', {
        url: fx.receiver.url('/analysis'),
        eventTypes: ['call.analysis_completed'],
      });
      assert.equal(endpoint.status, 200, endpoint.text);
      endpointSecret = endpoint.body.secret;
    });

    it('without providers nothing is sent anywhere: the transcript says NotRequested and the Call Webhook goes at once', async () => {
      await setProviders(false);
      const { id } = await recordedCall();
      const record = await finishedRecord(id);
      assert.ok(record.recordingUrl, 'the call was recorded');
      const { payload } = await callWebhook(record.callId, 10_000);
      assert.equal(payload.transcription, null);
      const transcript = await transcriptOf(id);
      assert.equal(transcript.status, 200, transcript.text);
      assert.equal(transcript.body.status, 'NotRequested');
      assert.deepEqual(transcript.body.segments, []);
      assert.equal(fx.openai.requests.length, 0);
    });

    it('the analysis fills the Call Webhook within the wait: each channel transcribed with its speaker, then summary, sentiment and criteria', async () => {
      await setProviders(true);
      fx.openai.transcripts = [BUSINESS, CUSTOMER];
      fx.openai.completion = JSON.stringify(ANSWER);
      const { id, outcome } = await recordedCall();
      const record = await finishedRecord(id);
      const outcomeHook = await waitFor(async () => fx.receiver.at(outcome)[0], 10_000, 'the outcome webhook');
      const { payload, receivedAt } = await callWebhook(record.callId);
      assert.ok(receivedAt >= outcomeHook.receivedAt, 'the outcome webhook did not wait for the analysis');
      assert.equal(
        payload.transcription,
        '[0:00] Business: Your order is ready.\n[0:02] Business: Press 1 to collect it today.\n[0:04] Customer: (tone 1)',
      );
      assert.equal(payload.summary, ANSWER.summary);
      assert.equal(payload.sentiment, 'Positive');
      assert.deepEqual(JSON.parse(payload.evaluationCriteriaResult), ANSWER.evaluationCriteriaResult);
      assert.ok(payload.recordingUrl);

      const [business, customer, chat] = fx.openai.requests.slice(-3);
      for (const request of [business, customer]) {
        assert.equal(request.path, '/audio/transcriptions');
        assert.equal(request.authorization, 'Bearer sk-test');
        assert.equal(request.fields.model, 'whisper-1');
        assert.equal(request.fields.response_format, 'verbose_json');
        assert.equal(request.fileBytes?.subarray(0, 4).toString('ascii'), 'RIFF', 'a WAV file');
        assert.equal(request.fileBytes?.readUInt16LE(22), 1, 'one channel: the speaker of its own');
      }
      assert.equal(chat.path, '/chat/completions');
      assert.equal(chat.fields.model, 'gpt-4o-mini');
      assert.equal((chat.fields.response_format as Payload).type, 'json_schema');
      const messages = chat.fields.messages as Array<{ role: string; content: string }>;
      assert.equal(messages[0].content, 'Summarise the call for the sales team.');
      assert.match(messages[1].content, /Business: Press 1 to collect it today\./);
      assert.match(messages[1].content, /Confirmed: The customer confirmed the collection\./);

      const transcript = (await transcriptOf(id)).body;
      assert.equal(transcript.status, 'Completed');
      assert.deepEqual(
        transcript.segments.map((s: Payload) => [s.speaker, s.start, s.text]),
        [
          ['Business', 0.2, 'Your order is ready.'],
          ['Business', 2.3, 'Press 1 to collect it today.'],
          ['Customer', 4.4, '(tone 1)'],
        ],
      );
      assert.equal(transcript.sentiment, 'Positive');

      const conversation = await fx.a.api.post('/v2/conversations/service-account/create', {
        channelId,
        phoneNumber: record.destinationNumber,
      });
      const timeline = await fx.a.api.get(`/v2/conversations/service-account/${conversation.body.conversation.id}/timeline`);
      const event = timeline.body.items.find((e: Payload) => e.sourceType === 1);
      assert.equal(event?.aiSummary?.summary, ANSWER.summary, JSON.stringify(timeline.body.items));
      assert.match(event.aiSummary.transcription, /Customer: \(tone 1\)/);
    });

    it('a provider slower than CALL_INTELLIGENCE_WAIT: the Call Webhook goes without the analysis, then call.analysis_completed brings it', async () => {
      // Three requests, each half the wait: the analysis ends after it.
      fx.openai.delayMs = WAIT_MS / 2;
      try {
        const { id } = await recordedCall();
        const record = await finishedRecord(id);
        const { payload } = await callWebhook(record.callId);
        assert.equal(payload.transcription, null, 'the wait was over before the analysis');
        assert.ok(payload.recordingUrl);
        const event = await waitFor(
          async () =>
            fx.receiver
              .at('/analysis')
              .map((d) => verifySignature(d, endpointSecret) as Payload)
              .find((e) => e.data?.outboundIvrRequestId === id),
          30_000,
          'call.analysis_completed',
        );
        assert.equal(event.type, 'call.analysis_completed');
        assert.equal(event.data.status, 'Completed');
        assert.equal(event.data.summary, ANSWER.summary);
        assert.ok(event.data.transcript.length > 0, JSON.stringify(event.data));
        assert.equal((await transcriptOf(id)).body.status, 'Completed');
      } finally {
        fx.openai.delayMs = 0;
      }
    });

    it('a 429 and a 500 are retried; the analysis still completes, and the Call Webhook has it', async () => {
      fx.openai.failures = [
        { path: '/audio/transcriptions', status: 429 },
        { path: '/chat/completions', status: 500 },
      ];
      const before = fx.openai.requests.length;
      const { id } = await recordedCall();
      const record = await finishedRecord(id);
      const { payload } = await callWebhook(record.callId);
      assert.equal(payload.summary, ANSWER.summary);
      assert.equal((await transcriptOf(id)).body.status, 'Completed');
      const paths = fx.openai.requests.slice(before).map((r) => r.path);
      assert.ok(paths.filter((p) => p === '/chat/completions').length >= 2, paths.join(', '));
    });

    it('a 401 (bad key) is not retried: analysisError on the record, the Call Webhook without the analysis, the outcome webhook unaffected', async () => {
      fx.openai.apiKey = 'sk-other';
      try {
        const before = fx.openai.requests.length;
        const { id, outcome } = await recordedCall();
        const record = await finishedRecord(id);
        await waitFor(async () => fx.receiver.at(outcome)[0], 10_000, 'the outcome webhook');
        const { payload } = await callWebhook(record.callId);
        assert.equal(payload.transcription, null);
        const transcript = await waitFor(
          async () => {
            const body = (await transcriptOf(id)).body;
            return body.status === 'Failed' ? body : null;
          },
          10_000,
          'the analysis to fail',
        );
        assert.match(transcript.analysisError, /401 Incorrect API key/);
        assert.equal(fx.openai.requests.length - before, 1, 'one request: a refusal is not retried');
      } finally {
        fx.openai.apiKey = null;
      }
    });

    it("an env: apiKeyRef sends the worker's variable; one not set fails the analysis without asking the provider", async () => {
      const put = (ref: string) =>
        fx.a.api.request('PUT', '/v1/call-intelligence', {
          json: {
            transcription: { provider: 'openai-compatible', baseUrl: fx.openai.url, model: 'whisper-1', apiKeyRef: ref },
            summary: { provider: 'none' },
          },
        });
      process.env.CALL_INTELLIGENCE_KEY_E2E = 'sk-from-the-environment';
      fx.openai.apiKey = 'sk-from-the-environment';
      try {
        assert.equal((await put('env:CALL_INTELLIGENCE_KEY_E2E')).status, 200);
        const before = fx.openai.requests.length;
        const { id } = await recordedCall();
        await finishedRecord(id);
        const done = await waitFor(
          async () => {
            const body = (await transcriptOf(id)).body;
            return body.status !== 'Pending' ? body : null;
          },
          10_000,
          'the analysis',
        );
        assert.equal(done.status, 'Completed', JSON.stringify(done));
        assert.ok(
          fx.openai.requests.slice(before).every((r) => r.authorization === 'Bearer sk-from-the-environment'),
          "the variable's value is the bearer key",
        );

        delete process.env.CALL_INTELLIGENCE_KEY_E2E;
        const asked = fx.openai.requests.length;
        const second = await recordedCall();
        await finishedRecord(second.id);
        const failed = await waitFor(
          async () => {
            const body = (await transcriptOf(second.id)).body;
            return body.status === 'Failed' ? body : null;
          },
          10_000,
          'the analysis to fail',
        );
        assert.match(failed.analysisError, /CALL_INTELLIGENCE_KEY_E2E is not set/);
        assert.equal(fx.openai.requests.length, asked, 'the provider was not asked without a key');
      } finally {
        delete process.env.CALL_INTELLIGENCE_KEY_E2E;
        fx.openai.apiKey = null;
        await setProviders(true);
      }
    });

    it("another workspace's call transcript is a 404", async () => {
      const { id } = await recordedCall();
      const res = await fx.b.api.get(`/v1/outbound-ivr/${id}/transcript`);
      assert.equal(res.status, 404, res.text);
    });
  },
);
