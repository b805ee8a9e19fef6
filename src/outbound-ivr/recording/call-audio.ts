import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { parseWavHeader, pcmWavHeader } from '../../media/wav.js';

/** Recordings are telephony audio: 8 kHz, 16-bit, one channel per party (Business left, Customer right). */
export const RECORDING_SAMPLE_RATE = 8000;
const CHANNELS = 2;
const BYTES_PER_FRAME = CHANNELS * 2;
/** A pressed key sounds this long. */
const TONE_MS = 150;
/** Level of each of a key's two tones (full scale is 32767). */
const TONE_AMPLITUDE = 8000;
/** The recording is written a second at a time, whatever its length. */
const CHUNK_FRAMES = RECORDING_SAMPLE_RATE;

/** The two frequencies (Hz) of each telephone key (ITU-T Q.23). */
const DTMF: Record<string, [number, number]> = {
  '1': [697, 1209],
  '2': [697, 1336],
  '3': [697, 1477],
  '4': [770, 1209],
  '5': [770, 1336],
  '6': [770, 1477],
  '7': [852, 1209],
  '8': [852, 1336],
  '9': [852, 1477],
  '*': [941, 1209],
  '0': [941, 1336],
  '#': [941, 1477],
};

export enum Party {
  Business = 0,
  Customer = 1,
}

/** Samples on one party's channel from `startFrame` on. */
interface Segment {
  party: Party;
  startFrame: number;
  samples: Int16Array;
}

/** Mono 16-bit PCM at 8 kHz from a WAV, or null for any other format (it is then silence in the recording). */
export function telephonySamples(wav: Buffer): Int16Array | null {
  let format;
  try {
    format = parseWavHeader(wav);
  } catch {
    return null;
  }
  if (format.audioFormat !== 1 || format.channels !== 1 || format.sampleRate !== RECORDING_SAMPLE_RATE || format.bitsPerSample !== 16)
    return null;
  const dataStart = wav.indexOf('data') + 8;
  const end = Math.min(wav.length, dataStart + format.dataBytes);
  const samples = new Int16Array(Math.floor((end - dataStart) / 2));
  for (let i = 0; i < samples.length; i++) samples[i] = wav.readInt16LE(dataStart + i * 2);
  return samples;
}

/** Reads at most `limit` bytes of a stream and stops it there. */
export async function readAtMost(stream: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    chunks.push(chunk as Buffer);
    size += (chunk as Buffer).length;
    if (size >= limit) break;
  }
  stream.destroy();
  return Buffer.concat(chunks).subarray(0, limit);
}

/**
 * A two-channel recording assembled from what happened on a call, each at its moment: what the
 * business played on the left channel, what the customer sent (or the tones of the keys pressed) on the right.
 * Every sound is cut off where the call ended.
 */
export class CallAudio {
  private readonly segments: Segment[] = [];

  /** Audio the business played, starting `atMs` into the call. */
  play(atMs: number, samples: Int16Array): void {
    this.segments.push({ party: Party.Business, startFrame: frameAt(atMs), samples });
  }

  /** Audio the customer sent (a WhatsApp call's received media), starting `atMs` into the call. */
  hear(atMs: number, samples: Int16Array): void {
    this.segments.push({ party: Party.Customer, startFrame: frameAt(atMs), samples });
  }

  /** A key the customer pressed `atMs` into the call. */
  press(atMs: number, digit: string): void {
    const pair = DTMF[digit];
    if (!pair) return;
    const samples = new Int16Array(frameAt(TONE_MS));
    for (let i = 0; i < samples.length; i++) {
      const t = i / RECORDING_SAMPLE_RATE;
      samples[i] = Math.round(TONE_AMPLITUDE * (Math.sin(2 * Math.PI * pair[0] * t) + Math.sin(2 * Math.PI * pair[1] * t)));
    }
    this.segments.push({ party: Party.Customer, startFrame: frameAt(atMs), samples });
  }

  /** Writes the WAV of a call `durationMs` long to `path`, a second at a time; returns its exact length in ms. */
  async write(path: string, durationMs: number): Promise<number> {
    const frames = frameAt(durationMs);
    const out = createWriteStream(path);
    const finished = once(out, 'finish');
    const write = async (bytes: Buffer) => {
      if (!out.write(bytes)) await once(out, 'drain');
    };
    await write(pcmWavHeader(frames * BYTES_PER_FRAME, RECORDING_SAMPLE_RATE, CHANNELS));
    for (let first = 0; first < frames; first += CHUNK_FRAMES) {
      const count = Math.min(CHUNK_FRAMES, frames - first);
      await write(this.mix(first, count));
    }
    out.end();
    await finished;
    return (frames / RECORDING_SAMPLE_RATE) * 1000;
  }

  /** Interleaved frames [first, first + count): each party's sounds added, clipped to 16 bits. */
  private mix(first: number, count: number): Buffer {
    const mixed = new Int32Array(count * CHANNELS);
    for (const segment of this.segments) {
      const from = Math.max(first, segment.startFrame);
      const to = Math.min(first + count, segment.startFrame + segment.samples.length);
      for (let frame = from; frame < to; frame++)
        mixed[(frame - first) * CHANNELS + segment.party] += segment.samples[frame - segment.startFrame];
    }
    const bytes = Buffer.alloc(count * BYTES_PER_FRAME);
    for (let i = 0; i < mixed.length; i++) bytes.writeInt16LE(Math.max(-32768, Math.min(32767, mixed[i])), i * 2);
    return bytes;
  }
}

function frameAt(ms: number): number {
  return Math.max(0, Math.round((ms * RECORDING_SAMPLE_RATE) / 1000));
}
