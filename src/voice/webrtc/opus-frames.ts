import { Encoder } from './opus-codec.js';
import { OPUS_INPUT_RATES, type PcmAudio } from './pcm-audio.js';

/** Every packet carries 20 ms of audio, the WebRTC default (`minptime` in Meta's offer). */
export const FRAME_MS = 20;
/** Opus's RTP clock is 48 kHz whatever rate the audio was encoded from (RFC 7587). */
export const OPUS_RTP_CLOCK_RATE = 48_000;

/**
 * A prompt's Opus frames, encoded once in order by one encoder and kept for every playback of the
 * same samples: a hundred calls playing one prompt cost one encoding, and each gets exactly the
 * frames a sequential encode gives (an Opus encoder carries state from frame to frame).
 */
class SharedFrames {
  readonly frames: Buffer[] = [];
  readonly audioRate: number;
  private readonly encoder: Encoder;
  private readonly samplesPerFrame: number;

  constructor(private readonly audio: PcmAudio) {
    this.audioRate = audio.sampleRate;
    this.samplesPerFrame = (audio.sampleRate * FRAME_MS) / 1000;
    this.encoder = new Encoder({ channels: 1, sample_rate: audio.sampleRate as (typeof OPUS_INPUT_RATES)[number], application: 'voip' });
  }

  /** Frame `index`, encoding the frames up to it that no playback needed before. */
  frame(index: number): Buffer {
    while (this.frames.length <= index) {
      const start = this.frames.length * this.samplesPerFrame;
      let pcm = this.audio.samples.subarray(start, start + this.samplesPerFrame);
      if (pcm.length < this.samplesPerFrame) {
        const padded = new Int16Array(this.samplesPerFrame);
        padded.set(pcm);
        pcm = padded;
      }
      this.frames.push(Buffer.from(this.encoder.encode(pcm)));
    }
    return this.frames[index];
  }
}

/** By the samples' identity: the frames live as long as the prompt's samples do (see the prompt cache). */
const shared = new WeakMap<Int16Array, SharedFrames>();

/**
 * A prompt's Opus frames one 20 ms frame at a time, as the pacer asks for them, so that a long
 * prompt never blocks the event loop for more than one frame's encoding; the last frame is padded
 * with silence. Frames another playback of the same samples encoded already are reused.
 */
export class OpusFrameEncoder {
  readonly frameCount: number;
  private readonly frames: SharedFrames;
  private next = 0;

  constructor(audio: PcmAudio) {
    if (!(OPUS_INPUT_RATES as readonly number[]).includes(audio.sampleRate)) {
      throw new Error(`Opus cannot encode from ${audio.sampleRate} Hz; resample to one of ${OPUS_INPUT_RATES.join(', ')}`);
    }
    this.frameCount = Math.ceil(audio.samples.length / ((audio.sampleRate * FRAME_MS) / 1000));
    let frames = shared.get(audio.samples);
    if (!frames || frames.audioRate !== audio.sampleRate) {
      frames = new SharedFrames(audio);
      shared.set(audio.samples, frames);
    }
    this.frames = frames;
  }

  /** The next frame's Opus payload, or undefined after the last. */
  nextFrame(): Buffer | undefined {
    if (this.next >= this.frameCount) return undefined;
    return this.frames.frame(this.next++);
  }
}
