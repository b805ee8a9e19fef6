import type { MediaThreadLost } from './media-path.errors.js';
import { MediaThread, type Ask } from './media-thread.js';
import { DEFAULT_CONNECT_TIMEOUT_MS, type MediaTransportOptions, type PlaybackReport, type ReceivedAudioListener } from './peer-media.js';
import type { PcmAudio } from './pcm-audio.js';

/** Beyond a call's own connect time limit, how long an unanswered thread is waited for. */
const THREAD_MARGIN_MS = 5000;

export { RECEIVED_AUDIO_RATE, type MediaTransportOptions, type PlaybackReport, type ReceivedAudioListener } from './peer-media.js';

/**
 * One call's media over WebRTC (see PeerMedia, which does the work in the process's media thread):
 * an audio peer connection that plays PCM prompts paced in real time as Opus and reports the keys
 * the far end sends. Signalling (the SDP in Meta's webhooks and API calls) is the caller's.
 */
export class WebRtcMediaTransport {
  private readonly keyListeners: Array<(key: string) => void> = [];
  private readonly audioListeners: ReceivedAudioListener[] = [];
  private readonly lostListeners: Array<(error: MediaThreadLost) => void> = [];
  private connection: Promise<void> | undefined;
  private sdp = '';
  private closed = false;
  private readonly call: number;

  private constructor(
    private readonly thread: MediaThread,
    private readonly connectTimeoutMs: number,
  ) {
    this.call = thread.register({
      key: (key) => this.keyListeners.forEach((listener) => listener(key)),
      audio: (samples, rtpTimestamp) => this.audioListeners.forEach((listener) => listener(samples, rtpTimestamp)),
      lost: (error) => {
        this.closed = true;
        this.lostListeners.forEach((listener) => listener(error));
      },
    });
  }

  /** Answers a far end's offer (Meta's offer for a user-initiated call). The answer is `localSdp`. */
  static async answer(remoteOffer: string, options: MediaTransportOptions = {}): Promise<WebRtcMediaTransport> {
    const transport = new WebRtcMediaTransport(MediaThread.get(), options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS);
    await transport.open({ op: 'answer', call: transport.call, options, offerSdp: remoteOffer });
    transport.startConnecting();
    return transport;
  }

  /** Makes an offer (for a business-initiated call's `connect`); pass the far end's answer to acceptAnswer(). */
  static async offer(options: MediaTransportOptions = {}): Promise<WebRtcMediaTransport> {
    const transport = new WebRtcMediaTransport(MediaThread.get(), options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS);
    await transport.open({ op: 'offer', call: transport.call, options });
    return transport;
  }

  async acceptAnswer(remoteAnswer: string): Promise<void> {
    await this.thread.ask({ op: 'acceptAnswer', call: this.call, sdp: remoteAnswer });
    this.startConnecting();
  }

  /** This side's SDP, candidates included. */
  get localSdp(): string {
    if (!this.sdp) throw new Error('No local description yet');
    return this.sdp;
  }

  /**
   * Resolves when ICE and DTLS are up and SRTP can flow; rejects with MediaPathNotConnected when they
   * fail, when the transport is closed first, or when `connectTimeoutMs` passes (then it is closed),
   * and with MediaThreadLost when the media thread stops first.
   */
  connected(): Promise<void> {
    if (!this.connection) return Promise.reject(new Error('No remote description yet: call acceptAnswer() first'));
    return this.connection;
  }

  onKey(listener: (key: string) => void): void {
    this.keyListeners.push(listener);
  }

  /** Called if the media thread stops while this call is open: its media is gone (MediaThreadLost). */
  onLost(listener: (error: MediaThreadLost) => void): void {
    this.lostListeners.push(listener);
  }

  /** Hands every Opus packet the far end sends, decoded to mono PCM at RECEIVED_AUDIO_RATE, to `listener` (a call's recording). */
  onAudio(listener: ReceivedAudioListener): void {
    if (this.audioListeners.length === 0) this.thread.tell({ op: 'listenAudio', call: this.call });
    this.audioListeners.push(listener);
  }

  /**
   * Plays a mono PCM prompt as Opus, one packet per 20 ms from now; resolves when its last packet
   * left or stop() ended it. One prompt at a time: a new play() stops the one before.
   */
  async play(audio: PcmAudio): Promise<PlaybackReport> {
    await this.connected();
    return this.thread.play(this.call, audio);
  }

  /** Stops the prompt playing, if any. */
  stop(): void {
    this.thread.tell({ op: 'stop', call: this.call });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.thread.ask({ op: 'close', call: this.call });
    } catch {
      // the thread is gone, and the peer with it
    } finally {
      this.thread.forget(this.call);
    }
  }

  private async open(request: Extract<Ask, { op: 'offer' | 'answer' }>): Promise<void> {
    try {
      this.sdp = await this.thread.ask<string>(request);
    } catch (error) {
      this.closed = true;
      this.thread.forget(this.call);
      throw error;
    }
  }

  private startConnecting(): void {
    // The thread keeps the time limit; this one only stops a thread that hangs from hanging the call.
    this.connection = this.thread.ask({ op: 'connected', call: this.call }, this.connectTimeoutMs + THREAD_MARGIN_MS);
    // A caller that never asks must not see an unhandled rejection.
    this.connection.catch(() => undefined);
  }
}
