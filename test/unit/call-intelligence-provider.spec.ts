import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OpenAiCompatibleClient, ProviderError } from '../../src/call-intelligence/openai-compatible-client.js';
import { mergeSegments, splitChannels } from '../../src/call-intelligence/transcript.js';
import { parseWavHeader, pcmWavHeader } from '../../src/media/wav.js';
import { FakeOpenAi } from '../support/fake-openai.js';

/** A two-channel WAV whose left samples are 1 and right samples 2. */
function stereo(frames: number): Buffer {
  const data = Buffer.alloc(frames * 4);
  for (let f = 0; f < frames; f++) {
    data.writeInt16LE(1, f * 4);
    data.writeInt16LE(2, f * 4 + 2);
  }
  return Buffer.concat([pcmWavHeader(data.length, 8000, 2), data]);
}

describe('Call intelligence: the OpenAI-compatible client against the fake, channel split and merge', () => {
  let fake: FakeOpenAi;
  before(async () => (fake = await FakeOpenAi.start()));
  after(() => fake.stop());

  it('splits a two-channel WAV into two mono WAVs, one per speaker', () => {
    const { business, customer } = splitChannels(stereo(800));
    for (const [wav, value] of [
      [business, 1],
      [customer, 2],
    ] as const) {
      const format = parseWavHeader(wav);
      assert.deepEqual([format.channels, format.sampleRate, format.durationMs], [1, 8000, 100]);
      assert.equal(wav.readInt16LE(44), value);
    }
    assert.throws(() => splitChannels(Buffer.concat([pcmWavHeader(4, 8000), Buffer.alloc(4)])), /two-channel/);
  });

  it('merges both speakers by start offset', () => {
    const merged = mergeSegments(
      [
        { start: 0, end: 2, text: ' Press one. ' },
        { start: 5, end: 6, text: 'Thank you.' },
      ],
      [{ start: 3, end: 4, text: 'One.' }],
    );
    assert.deepEqual(
      merged.map((s) => [s.speaker, s.start, s.text]),
      [
        ['Business', 0, 'Press one.'],
        ['Customer', 3, 'One.'],
        ['Business', 5, 'Thank you.'],
      ],
    );
  });

  it('transcribes with verbose_json and sends the key; parses a JSON-schema completion', async () => {
    fake.apiKey = 'sk-test';
    fake.transcripts = [[{ start: 0.5, end: 1.5, text: 'Hello there.' }]];
    const client = new OpenAiCompatibleClient({ baseUrl: fake.url, model: 'whisper-1', apiKey: 'sk-test', keyProblem: null, prompt: null });
    const segments = await client.transcribe(splitChannels(stereo(800)).business, 'business.wav');
    assert.deepEqual(segments, [{ start: 0.5, end: 1.5, text: 'Hello there.' }]);
    const sent = fake.requests.at(-1)!;
    assert.equal(sent.fields.response_format, 'verbose_json');
    assert.equal(sent.fields.model, 'whisper-1');
    assert.equal(parseWavHeader(sent.fileBytes!).channels, 1);

    fake.completion = JSON.stringify({ summary: 'Confirmed.', sentiment: 'Positive' });
    const answer = await client.completeJson<{ sentiment: string }>([{ role: 'user', content: 'x' }], 'analysis', { type: 'object' });
    assert.equal(answer.sentiment, 'Positive');
    assert.equal((fake.requests.at(-1)!.fields.response_format as { type: string }).type, 'json_schema');
  });

  it("classifies OpenAI's errors: 429 and 5xx retryable with the provider's message, 401 not", async () => {
    fake.apiKey = 'sk-test';
    const client = new OpenAiCompatibleClient({ baseUrl: fake.url, model: 'm', apiKey: 'sk-test', keyProblem: null, prompt: null });
    for (const status of [429, 500, 503] as const) {
      fake.failures = [{ path: '/chat/completions', status }];
      const error = await client.completeJson([{ role: 'user', content: 'x' }], 'a', {}).catch((e: unknown) => e);
      assert.ok(error instanceof ProviderError && error.retryable && error.status === status, String(error));
    }
    const wrongKey = new OpenAiCompatibleClient({ baseUrl: fake.url, model: 'm', apiKey: 'sk-wrong', keyProblem: null, prompt: null });
    const refused = await wrongKey.transcribe(stereo(8), 'a.wav').catch((e: unknown) => e);
    assert.ok(refused instanceof ProviderError && !refused.retryable && refused.status === 401);
    assert.match(refused.message, /Incorrect API key/);
  });
});
