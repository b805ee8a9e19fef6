/** A known prompt and the measures that tell whether it arrived intact after Opus over WebRTC. */
import { Decoder } from '@evan/opus';
import { pcmWavHeader } from '../../src/media/wav.js';

/** Prompts are stored as 8 kHz telephony WAV. */
export const RATE = 8000;

/** A 1.5 s telephony prompt (8 kHz mono WAV, as stored): tone, silence, a louder two-tone burst, silence. */
export function promptWav(): Buffer {
  const parts: Array<{ ms: number; sample: (t: number) => number }> = [
    { ms: 400, sample: (t) => 6000 * Math.sin(2 * Math.PI * 440 * t) },
    { ms: 300, sample: () => 0 },
    { ms: 500, sample: (t) => 7000 * Math.sin(2 * Math.PI * 700 * t) + 5000 * Math.sin(2 * Math.PI * 1200 * t) },
    { ms: 300, sample: () => 0 },
  ];
  const samples = parts.flatMap(({ ms, sample }) => Array.from({ length: (RATE * ms) / 1000 }, (_, i) => Math.round(sample(i / RATE))));
  const data = Buffer.alloc(samples.length * 2);
  samples.forEach((s, i) => data.writeInt16LE(s, i * 2));
  return Buffer.concat([pcmWavHeader(data.length, RATE), data]);
}

export function rms(samples: Int16Array, from = 0, to = samples.length): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += samples[i] * samples[i];
  return Math.sqrt(sum / Math.max(1, to - from));
}

/** RMS of each 20 ms window: where the prompt is loud and where it is silent. */
export function envelope(samples: Int16Array): number[] {
  const window = RATE / 50;
  return Array.from({ length: Math.floor(samples.length / window) }, (_, k) => rms(samples, k * window, (k + 1) * window));
}

export function correlation(a: number[], b: number[]): number {
  const n = Math.min(a.length, b.length);
  const mean = (x: number[]) => x.slice(0, n).reduce((s, v) => s + v, 0) / n;
  const [ma, mb] = [mean(a), mean(b)];
  let num = 0;
  let da = 0;
  let db = 0;
  for (let i = 0; i < n; i++) {
    num += (a[i] - ma) * (b[i] - mb);
    da += (a[i] - ma) ** 2;
    db += (b[i] - mb) ** 2;
  }
  return num / Math.sqrt(da * db);
}

/** Decodes Opus payloads in order to 8 kHz mono PCM. */
export function decode(payloads: Buffer[]): Int16Array {
  const decoder = new Decoder({ channels: 1, sample_rate: RATE });
  const chunks = payloads.map((p) => {
    const bytes = decoder.decode(p);
    return new Int16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 2);
  });
  const out = new Int16Array(chunks.reduce((n, c) => n + c.length, 0));
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.length;
  }
  return out;
}

/** One channel (0 left, 1 right) of a two-channel 16-bit WAV with a 44-byte header. */
export function wavChannel(wav: Buffer, channel: number): Int16Array {
  const frames = Math.floor((wav.length - 44) / 4);
  const out = new Int16Array(frames);
  for (let f = 0; f < frames; f++) out[f] = wav.readInt16LE(44 + f * 4 + channel * 2);
  return out;
}

/** The energy of one frequency in a stretch of samples (Goertzel). */
export function power(samples: Int16Array, hz: number): number {
  const k = 2 * Math.cos((2 * Math.PI * hz) / RATE);
  let [s1, s2] = [0, 0];
  for (const x of samples) [s1, s2] = [x + k * s1 - s2, s1];
  return s1 * s1 + s2 * s2 - k * s1 * s2;
}
