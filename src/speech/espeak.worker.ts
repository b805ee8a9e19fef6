// Runs in a worker thread (see espeak-thread.ts): eSpeak NG synthesizes synchronously and would
// otherwise block the event loop for up to a second or two on 5000 characters.
import { writeFile } from 'node:fs/promises';
import { parentPort } from 'node:worker_threads';
import createESpeakNg from '@echogarden/espeak-ng-emscripten';
import { pcmWavHeader } from '../media/wav.js';

export interface SpeakRequest {
  id: number;
  text: string;
  voice: string;
  outputPath: string;
}

export interface SpeakReply {
  id: number;
  error?: string;
}

const engine = createESpeakNg().then((module) => new module.eSpeakNGWorker());

async function speak({ text, voice, outputPath }: SpeakRequest): Promise<void> {
  const synth = await engine;
  // Voice and synthesis in one synchronous stretch: no other request can change the voice in between.
  if (synth.set_voice(voice) !== 0) throw new Error(`eSpeak NG has no voice '${voice}'`);
  const chunks: Buffer[] = [];
  synth.synthesize(text, (samples) => {
    chunks.push(Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength));
    return false;
  });
  const pcm = Buffer.concat(chunks);
  await writeFile(outputPath, Buffer.concat([pcmWavHeader(pcm.length, synth.samplerate), pcm]));
}

parentPort?.on('message', (request: SpeakRequest) => {
  speak(request).then(
    () => parentPort?.postMessage({ id: request.id } satisfies SpeakReply),
    (err: unknown) =>
      parentPort?.postMessage({ id: request.id, error: err instanceof Error ? err.message : String(err) } satisfies SpeakReply),
  );
});
