import { FRAME_MS, OPUS_RTP_CLOCK_RATE } from '../../voice/webrtc/opus-frames.js';
import { CallAudio, RECORDING_SAMPLE_RATE } from './call-audio.js';

/**
 * The recording of a call whose media runs in this worker (a WhatsApp call, API.md §16): what the
 * worker played and what it received, each placed at its moment from the answer on. Received audio
 * is placed by its RTP timestamps from the first packet heard, so network jitter does not shift it.
 */
export class MediaTape {
  readonly audio = new CallAudio();
  private answeredAt: number | null = null;
  private endedAt: number | null = null;
  private firstHeard: { rtpTimestamp: number; atMs: number } | null = null;

  /** The call was answered: the recording starts now. */
  start(at = Date.now()): void {
    this.answeredAt ??= at;
  }

  get started(): boolean {
    return this.answeredAt !== null;
  }

  /** A prompt at the recording's rate went out as `packets` 20 ms packets (fewer when a key stopped it), the first due at `at` (epoch ms). */
  played(at: number, samples: Int16Array, packets: number): void {
    if (this.answeredAt === null || packets <= 0) return;
    this.audio.play(at - this.answeredAt, samples.subarray(0, (packets * FRAME_MS * RECORDING_SAMPLE_RATE) / 1000));
  }

  /** A packet the far end sent, decoded at telephony rate. */
  heard(samples: Int16Array, rtpTimestamp: number): void {
    if (this.answeredAt === null || this.endedAt !== null) return;
    if (!this.firstHeard) this.firstHeard = { rtpTimestamp, atMs: Date.now() - this.answeredAt };
    // Signed 32-bit difference: the timestamp wraps; a packet older than the first is dropped.
    const ticks = (rtpTimestamp - this.firstHeard.rtpTimestamp) | 0;
    if (ticks < 0) return;
    this.audio.hear(this.firstHeard.atMs + (ticks * 1000) / OPUS_RTP_CLOCK_RATE, samples);
  }

  /** The call ended: nothing heard later is kept. */
  end(at = Date.now()): void {
    this.endedAt ??= at;
  }

  /** From the answer to the end (or now). */
  get lengthMs(): number {
    return this.answeredAt === null ? 0 : (this.endedAt ?? Date.now()) - this.answeredAt;
  }
}
