import { DataSource } from 'typeorm';
import { AppConfig } from '../../src/config/app-config.js';
import { validateEnv } from '../../src/config/env.schema.js';
import { typeormOptions } from '../../src/database/typeorm-options.js';
import { AudioConverter } from '../../src/media/audio-converter.js';
import { Ffmpeg } from '../../src/media/ffmpeg.js';
import { SpeechSynthesizer } from '../../src/speech/speech-synthesizer.js';
import { TtsVoice } from '../../src/speech/tts-voice.js';
import { LocalDiskBlobStore } from '../../src/storage/local-disk-blob-store.js';
import { MediaFile } from '../../src/storage/media-file.entity.js';
import { MediaFilesRepository } from '../../src/storage/media-files.repository.js';
import { MediaStorage } from '../../src/storage/media-storage.js';
import { StoragePaths } from '../../src/storage/storage-paths.js';
import { ffmpegGenerate } from '../../test/support/media-fixtures.js';
import type { Scenario } from './index.js';

const MB = 1024 * 1024;
const RUNS = 7;
const MP3_SECONDS = 320;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
const ms = (value: number) => `${Math.round(value)} ms`;

export const uploadAudioScenario: Scenario = {
  name: 'POST Upload Audio File: 10 MB MP3 → WAV 8 kHz',
  async run(ctx) {
    // 320 s of pink noise and a tone at 256 kbps: just under the 10 MB limit.
    const mp3 = await ffmpegGenerate(
      [
        ...`-f lavfi -i anoisesrc=color=pink:sample_rate=44100:amplitude=0.3:duration=${MP3_SECONDS}`.split(' '),
        ...`-f lavfi -i sine=frequency=440:sample_rate=44100:duration=${MP3_SECONDS}`.split(' '),
        ...'-filter_complex [0][1]amix=inputs=2,aformat=channel_layouts=stereo -c:a libmp3lame -b:a 256k'.split(' '),
      ],
      'mp3',
    );
    const times: number[] = [];
    let stored: { durationMs: number; size: number; contentType: string } | undefined;
    for (let i = 0; i < RUNS; i++) {
      const form = new FormData();
      form.append('audioFile', new Blob([mp3], { type: 'audio/mpeg' }), 'announcement.mp3');
      const started = performance.now();
      const res = await fetch(`${ctx.apiUrl}/v1/support/upload-audio`, {
        method: 'POST',
        body: form,
        headers: { authorization: `Bearer ${ctx.token}` },
      });
      const text = await res.text();
      times.push(performance.now() - started);
      if (!res.ok) throw new Error(`upload-audio → ${res.status} ${text}`);
      stored = JSON.parse(text);
    }
    const sorted = [...times].sort((a, b) => a - b);
    const max = sorted[sorted.length - 1];
    return {
      name: this.name,
      checks: [
        {
          what: `${(mp3.length / MB).toFixed(2)} MB, ${MP3_SECONDS} s, ${RUNS} uploads end to end: p50 ${ms(percentile(sorted, 0.5))}, max ${ms(max)} ≤ 3000 ms`,
          ok: max <= 3000,
        },
        {
          what: `stored ${stored!.contentType}, ${(stored!.size / MB).toFixed(2)} MB, ${stored!.durationMs} ms`,
          ok: stored!.contentType === 'audio/wav' && Math.abs(stored!.durationMs - MP3_SECONDS * 1000) <= 100,
        },
      ],
    };
  },
};

const PROMPT =
  'Hello, this is a reminder from your clinic about your appointment tomorrow at ten in the morning. ' +
  'Press one to confirm, press two to cancel, or press three to speak with our reception team.';

/**
 * Speech as the IVR worker will call it (synthesis in the eSpeak NG thread, conversion, storage),
 * in this process against the bench database: no HTTP route synthesizes speech on its own.
 */
export const speechScenario: Scenario = {
  name: 'Speech synthesis (eSpeak NG) → stored WAV 8 kHz',
  async run(ctx) {
    const config = new AppConfig(validateEnv(ctx.env));
    const dataSource = await new DataSource(typeormOptions(ctx.databaseUrl)).initialize();
    const paths = new StoragePaths(config);
    const storage = new MediaStorage(new MediaFilesRepository(dataSource.getRepository(MediaFile)), new LocalDiskBlobStore(paths), config);
    const speech = new SpeechSynthesizer(storage, paths, new AudioConverter(new Ffmpeg(config)));
    const timed = async (text: string, voice: TtsVoice) => {
      const started = performance.now();
      const media = await speech.synthesize(ctx.workspaceId, text, voice);
      return { took: performance.now() - started, durationMs: media.durationMs! };
    };
    try {
      const cold = await timed(PROMPT, TtsVoice.Female);
      const warm: number[] = [];
      for (let i = 0; i < 10; i++) warm.push((await timed(PROMPT, i % 2 ? TtsVoice.Male : TtsVoice.Female)).took);
      const long = 'Please listen carefully, as our menu options have recently changed. '.repeat(80).slice(0, 5000);
      const longRuns: Array<{ took: number; durationMs: number }> = [];
      for (let i = 0; i < 3; i++) longRuns.push(await timed(long, TtsVoice.Male));
      const started = performance.now();
      await Promise.all(Array.from({ length: 4 }, (_, i) => timed(PROMPT, i % 2 ? TtsVoice.Male : TtsVoice.Female)));
      const fourAtOnce = performance.now() - started;
      const sortedWarm = [...warm].sort((a, b) => a - b);
      const longBest = Math.min(...longRuns.map((r) => r.took));
      return {
        name: this.name,
        checks: [
          { what: `first call (thread start) ${ms(cold.took)}`, ok: true },
          {
            what: `${PROMPT.length} characters (${(cold.durationMs / 1000).toFixed(1)} s of audio): p50 ${ms(percentile(sortedWarm, 0.5))}, max ${ms(sortedWarm[sortedWarm.length - 1])}`,
            ok: true,
          },
          {
            what: `5000 characters (${(longRuns[0].durationMs / 1000).toFixed(0)} s of audio): ${longRuns.map((r) => ms(r.took)).join(', ')} = ${((longBest / 5000) * 100).toFixed(1)} ms per 100 characters`,
            ok: true,
          },
          { what: `4 prompts at once: ${ms(fourAtOnce)}`, ok: true },
        ],
      };
    } finally {
      await speech.onModuleDestroy();
      await dataSource.destroy();
    }
  },
};
