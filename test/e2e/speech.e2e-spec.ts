import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { before, it } from 'node:test';
import { parseWavHeader } from '../../src/media/wav.js';
import { SpeechSynthesizer } from '../../src/speech/speech-synthesizer.js';
import { TtsVoice } from '../../src/speech/tts-voice.js';
import { DomainError } from '../../src/common/errors/domain-error.js';
import { describeWithApp } from '../support/describe-with-app.js';
import { TempDir } from '../support/temp-dir.js';

const PUBLIC_BASE_URL = 'https://media.example.test';
const PROMPT = 'Hello, this is a reminder of your appointment tomorrow at ten. Press one to confirm, or two to cancel.';

/**
 * Median fundamental frequency of 8 kHz 16-bit PCM: for each loud 50 ms frame, the lag between
 * 2.5 and 20 ms (400 to 50 Hz) with the strongest autocorrelation.
 */
function medianPitchHz(pcm: Buffer): number {
  const samples = Int16Array.from({ length: pcm.length / 2 }, (_, i) => pcm.readInt16LE(i * 2));
  const pitches: number[] = [];
  for (let start = 0; start + 400 <= samples.length; start += 400) {
    const frame = samples.subarray(start, start + 400);
    if (Math.sqrt(frame.reduce((sum, x) => sum + x * x, 0) / frame.length) < 1000) continue;
    let best = { lag: 0, score: 0 };
    for (let lag = 20; lag <= 160; lag++) {
      let score = 0;
      for (let i = 0; i + lag < frame.length; i++) score += frame[i] * frame[i + lag];
      if (score > best.score) best = { lag, score };
    }
    if (best.lag) pitches.push(8000 / best.lag);
  }
  pitches.sort((x, y) => x - y);
  return pitches[Math.floor(pitches.length / 2)];
}

describeWithApp(
  'Speech synthesis (eSpeak NG, offline)',
  {
    peers: { storage: async () => TempDir.create('speech-') },
    env: ({ storage }) => ({ STORAGE_DIR: storage.path, PUBLIC_BASE_URL }),
    workspaces: 1,
  },
  (fx) => {
    let speech: SpeechSynthesizer;

    const download = async (url: string): Promise<Buffer> => {
      assert.ok(url.startsWith(`${PUBLIC_BASE_URL}/media/`), url);
      const res = await fetch(`${fx.t.baseUrl}${url.slice(PUBLIC_BASE_URL.length)}`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'audio/wav');
      return Buffer.from(await res.arrayBuffer());
    };

    before(() => {
      speech = fx.t.app.get(SpeechSynthesizer);
    });

    it('speaks text as a playable telephony WAV, female and male, and the voices differ', async () => {
      const pitches: number[] = [];
      for (const voice of [TtsVoice.Female, TtsVoice.Male]) {
        const started = Date.now();
        const media = await speech.synthesize(fx.a.workspaceId, PROMPT, voice);
        const took = Date.now() - started;
        assert.equal(media.mediaType, 'audio');
        assert.equal(media.contentType, 'audio/wav');
        assert.equal(media.fileName, `speech-${TtsVoice[voice].toLowerCase()}.wav`);
        const wav = await download(media.url);
        assert.equal(wav.length, media.size);
        const format = parseWavHeader(wav);
        assert.deepEqual(
          {
            audioFormat: format.audioFormat,
            channels: format.channels,
            sampleRate: format.sampleRate,
            bitsPerSample: format.bitsPerSample,
          },
          { audioFormat: 1, channels: 1, sampleRate: 8000, bitsPerSample: 16 },
        );
        assert.equal(media.durationMs, format.durationMs);
        // About 100 characters at eSpeak's 175 words per minute: five to eight seconds.
        assert.ok(media.durationMs > 4000 && media.durationMs < 10000, `${TtsVoice[voice]}: ${media.durationMs} ms`);
        const pcm = wav.subarray(44);
        assert.ok(
          pcm.some((byte) => byte !== 0),
          'not silence',
        );
        pitches.push(medianPitchHz(pcm));
        console.log(`  ${TtsVoice[voice]}: ${PROMPT.length} characters → ${media.durationMs} ms of audio in ${took} ms`);
      }
      console.log(`  median pitch: female ${pitches[0].toFixed(0)} Hz, male ${pitches[1].toFixed(0)} Hz`);
      assert.ok(pitches[0] > pitches[1] * 1.3, `female voice higher than male: ${pitches.map((p) => p.toFixed(0)).join(' vs ')} Hz`);
    });

    it('keeps overlapping calls apart: each gets its own text and voice', async () => {
      // eSpeak varies its voicing slightly from run to run, so compare length and pitch, not bytes.
      const texts = ['Press one for sales.', 'Press two for support, or stay on the line.', PROMPT];
      const requests = texts.flatMap((text) => [TtsVoice.Female, TtsVoice.Male].map((voice) => ({ text, voice })));
      const one = async (r: { text: string; voice: TtsVoice }) => {
        const media = await speech.synthesize(fx.a.workspaceId, r.text, r.voice);
        return { durationMs: media.durationMs!, pitchHz: medianPitchHz((await download(media.url)).subarray(44)) };
      };
      const sequential: Array<{ durationMs: number; pitchHz: number }> = [];
      for (const r of requests) sequential.push(await one(r));
      const concurrent = await Promise.all(requests.map(one));
      concurrent.forEach((result, i) => {
        const what = `${TtsVoice[requests[i].voice]} "${requests[i].text.slice(0, 20)}": ${JSON.stringify(result)} vs ${JSON.stringify(sequential[i])}`;
        assert.ok(Math.abs(result.durationMs - sequential[i].durationMs) <= sequential[i].durationMs * 0.03, what);
        assert.ok(Math.abs(result.pitchHz - sequential[i].pitchHz) <= sequential[i].pitchHz * 0.15, what);
      });
    });

    it('speaks Arabic text with the Arabic voice, and takes 5000 characters', async () => {
      const arabic = await speech.synthesize(fx.a.workspaceId, 'مرحبا، اضغط واحد للتأكيد أو اثنين للإلغاء.', TtsVoice.Female);
      assert.ok(arabic.durationMs! > 1500, `${arabic.durationMs} ms`);
      const long = 'Please listen carefully, as our menu options have changed. '.repeat(90).slice(0, 5000);
      const started = Date.now();
      const media = await speech.synthesize(fx.a.workspaceId, long, TtsVoice.Male);
      console.log(`  5000 characters → ${media.durationMs} ms of audio in ${Date.now() - started} ms`);
      assert.ok(media.durationMs! > 180_000, `${media.durationMs} ms`);
    });

    it('refuses empty text and text over 5000 characters, leaving no temp files', async () => {
      for (const text of ['', '   ', 'x'.repeat(5001)]) {
        await assert.rejects(speech.synthesize(fx.a.workspaceId, text, TtsVoice.Female), (err: unknown) => {
          assert.ok(err instanceof DomainError);
          assert.equal(err.code, 'Speech:InvalidText');
          assert.equal(err.status, 400);
          return true;
        });
      }
      assert.deepEqual(readdirSync(join(fx.storage.path, 'tmp')), []);
    });
  },
);
