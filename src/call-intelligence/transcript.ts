import { parseWavHeader, pcmWavHeader } from '../media/wav.js';

export type Speaker = 'Business' | 'Customer';

/** One stretch of speech in a call's transcript; offsets in seconds from the recording's start. */
export interface TranscriptSegment {
  speaker: Speaker;
  start: number;
  end: number;
  text: string;
}

/**
 * A stored call recording is a two-channel 16-bit PCM WAV: left the business (what we played),
 * right the customer. Each channel is transcribed on its own so that every segment has its speaker.
 */
export function splitChannels(wav: Buffer): { business: Buffer; customer: Buffer } {
  const format = parseWavHeader(wav);
  if (format.audioFormat !== 1 || format.channels !== 2 || format.bitsPerSample !== 16)
    throw new Error(
      `Expected a two-channel 16-bit PCM WAV, got ${format.channels} channel(s) of ${format.bitsPerSample}-bit format ${format.audioFormat}`,
    );
  const data = wav.indexOf('data', 12) + 8;
  const frames = Math.floor(Math.min(format.dataBytes, wav.length - data) / 4);
  // One copy into aligned 16-bit samples, then a plain loop (a Buffer.copy per sample cost ~3 ms a second of audio).
  const interleaved = new Int16Array(frames * 2);
  new Uint8Array(interleaved.buffer).set(wav.subarray(data, data + frames * 4));
  const left = new Int16Array(frames);
  const right = new Int16Array(frames);
  for (let f = 0; f < frames; f++) {
    left[f] = interleaved[2 * f];
    right[f] = interleaved[2 * f + 1];
  }
  const mono = (pcm: Int16Array) => Buffer.concat([pcmWavHeader(pcm.byteLength, format.sampleRate), Buffer.from(pcm.buffer)]);
  return { business: mono(left), customer: mono(right) };
}

/** Both speakers' segments in the order they were said (by start offset; the business first on a tie). */
export function mergeSegments(
  business: Omit<TranscriptSegment, 'speaker'>[],
  customer: Omit<TranscriptSegment, 'speaker'>[],
): TranscriptSegment[] {
  const tagged = [
    ...business.map((s) => ({ ...s, speaker: 'Business' as const })),
    ...customer.map((s) => ({ ...s, speaker: 'Customer' as const })),
  ];
  return tagged
    .map((s, index) => ({ s, index }))
    .sort((a, b) => a.s.start - b.s.start || a.index - b.index)
    .map(({ s }) => ({ speaker: s.speaker, start: s.start, end: s.end, text: s.text.trim() }));
}
