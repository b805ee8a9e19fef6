import { Encoder } from '@evan/opus';
import { OPUS_INPUT_RATES, type PcmAudio } from './pcm-audio.js';

/** Every packet carries 20 ms of audio, the WebRTC default (`minptime` in Meta's offer). */
export const FRAME_MS = 20;
/** Opus's RTP clock is 48 kHz whatever rate the audio was encoded from (RFC 7587). */
export const OPUS_RTP_CLOCK_RATE = 48_000;

/**
 * Encodes a prompt to Opus one 20 ms frame at a time, as the pacer asks for it, so that a long prompt
 * never blocks the event loop for more than one frame's encoding. The last frame is padded with
 * silence. One encoder per playback: an Opus encoder carries state from frame to frame.
 */
export class OpusFrameEncoder {
  readonly frameCount: number;
  private readonly encoder: Encoder;
  private readonly samplesPerFrame: number;
  private next = 0;

  constructor(private readonly audio: PcmAudio) {
    if (!(OPUS_INPUT_RATES as readonly number[]).includes(audio.sampleRate)) {
      throw new Error(`Opus cannot encode from ${audio.sampleRate} Hz; resample to one of ${OPUS_INPUT_RATES.join(', ')}`);
    }
    this.samplesPerFrame = (audio.sampleRate * FRAME_MS) / 1000;
    this.frameCount = Math.ceil(audio.samples.length / this.samplesPerFrame);
    this.encoder = new Encoder({ channels: 1, sample_rate: audio.sampleRate as (typeof OPUS_INPUT_RATES)[number], application: 'voip' });
  }

  /** The next frame's Opus payload, or undefined after the last. */
  nextFrame(): Buffer | undefined {
    if (this.next >= this.frameCount) return undefined;
    const start = this.next++ * this.samplesPerFrame;
    let frame = this.audio.samples.subarray(start, start + this.samplesPerFrame);
    if (frame.length < this.samplesPerFrame) {
      const padded = new Int16Array(this.samplesPerFrame);
      padded.set(frame);
      frame = padded;
    }
    return Buffer.from(this.encoder.encode(frame));
  }
}
