import { Decoder } from './opus-codec.js';
import { RTCPeerConnection, RTCRtpCodecParameters, RtpHeader, RtpPacket, type RTCRtpTransceiver } from 'werift';
import { MediaPathNotConnected } from './media-path.errors.js';
import { FRAME_MS, OPUS_RTP_CLOCK_RATE, OpusFrameEncoder } from './opus-frames.js';
import { pacePackets, type PacedResult, type PacedSend } from './packet-pacer.js';
import type { PcmAudio } from './pcm-audio.js';
import { TelephoneEventReceiver } from './telephone-events.js';

export interface MediaTransportOptions {
  /** ICE host candidates to add to the machine's own addresses (a public address behind 1:1 NAT; 127.0.0.1 in tests). */
  hostAddresses?: string[];
  /** When set, only candidate pairs whose local address is one of these are tried. */
  onlyLocalAddresses?: string[];
  /** UDP ports to gather host candidates on (a firewall's opening). */
  icePortRange?: [number, number];
  /** How long ICE + DTLS may take once both descriptions are set before the path is reported failed. Default 10 s. */
  connectTimeoutMs?: number;
}

/** Audio the far end sent: one decoded packet, mono 16-bit PCM at {@link RECEIVED_AUDIO_RATE}, and its RTP timestamp (48 kHz clock). */
export type ReceivedAudioListener = (samples: Int16Array, rtpTimestamp: number) => void;

/** Received Opus is decoded at telephony rate, the rate recordings are kept at. */
export const RECEIVED_AUDIO_RATE = 8000;

export interface PlaybackReport {
  packets: number;
  stopped: boolean;
  /** From play() to the first packet handed to SRTP. */
  firstPacketAfterMs: number;
  /** When the first packet was due (epoch ms): the prompt's place in the call, whatever the event loop's delays. */
  dueAt: number;
}

const OPUS = { mimeType: 'audio/opus', clockRate: OPUS_RTP_CLOCK_RATE, channels: 2 } as const;
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;

/** Opus for the audio, telephone-event (RFC 4733) at both clock rates peers offer it at, for the keys. */
function codecs(): RTCRtpCodecParameters[] {
  return [
    new RTCRtpCodecParameters({ ...OPUS, payloadType: 111, parameters: 'minptime=10;useinbandfec=1' }),
    new RTCRtpCodecParameters({ mimeType: 'audio/telephone-event', clockRate: 8000, channels: 1, payloadType: 126 }),
    new RTCRtpCodecParameters({ mimeType: 'audio/telephone-event', clockRate: 48_000, channels: 1, payloadType: 110 }),
  ];
}

/**
 * One call's media over WebRTC: an audio peer connection (ICE, DTLS-SRTP, Opus) that plays PCM
 * prompts paced in real time and reports the keys the far end sends as RFC 4733 telephone-events.
 * It knows nothing of dialogs: signalling (the SDP in Meta's webhooks and API calls) is the caller's.
 * Non-trickle: the local SDP holds every candidate, as Meta's one-shot SDP exchange needs.
 * It runs in the media thread (media-thread.worker.ts); the rest of the process uses it through
 * PeerMedia.
 */
export class PeerMedia {
  private readonly transceiver: RTCRtpTransceiver;
  private readonly keyListeners: Array<(key: string) => void> = [];
  private readonly audioListeners: ReceivedAudioListener[] = [];
  /** Made at the first listener: a call nobody records decodes nothing. */
  private decoder: Decoder | undefined;
  private readonly keys = new TelephoneEventReceiver((key) => this.keyListeners.forEach((listener) => listener(key)));
  private readonly connectTimeoutMs: number;
  private readonly createdAt = performance.now();
  private readonly timestampBase = Math.floor(Math.random() * 2 ** 32);
  private sequenceNumber = Math.floor(Math.random() * 2 ** 16);
  private playing: PacedSend | undefined;
  private connection: Promise<void> | undefined;
  private closed = false;

  private constructor(
    private readonly pc: RTCPeerConnection,
    options: MediaTransportOptions,
  ) {
    this.connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    this.transceiver = pc.addTransceiver('audio', { direction: 'sendrecv' });
    this.transceiver.onTrack.subscribe((track) =>
      track.onReceiveRtp.subscribe((rtp) => {
        if (this.telephoneEventTypes().has(rtp.header.payloadType)) this.keys.receive(rtp.header.timestamp, rtp.payload);
        else if (this.decoder && this.opusTypes().has(rtp.header.payloadType)) this.hear(rtp.payload, rtp.header.timestamp);
      }),
    );
  }

  /** Answers a far end's offer (Meta's offer for a user-initiated call). The answer is `localSdp`. */
  static async answer(remoteOffer: string, options: MediaTransportOptions = {}): Promise<PeerMedia> {
    const transport = new PeerMedia(peerConnection(options), options);
    try {
      await transport.pc.setRemoteDescription({ type: 'offer', sdp: remoteOffer });
      await transport.pc.setLocalDescription(await transport.pc.createAnswer());
      await transport.gathered();
    } catch (error) {
      await transport.close();
      throw error;
    }
    transport.startConnecting();
    return transport;
  }

  /** Makes an offer (for a business-initiated call's `connect`); pass the far end's answer to acceptAnswer(). */
  static async offer(options: MediaTransportOptions = {}): Promise<PeerMedia> {
    const transport = new PeerMedia(peerConnection(options), options);
    try {
      await transport.pc.setLocalDescription(await transport.pc.createOffer());
      await transport.gathered();
    } catch (error) {
      await transport.close();
      throw error;
    }
    return transport;
  }

  async acceptAnswer(remoteAnswer: string): Promise<void> {
    await this.pc.setRemoteDescription({ type: 'answer', sdp: remoteAnswer });
    this.startConnecting();
  }

  /** This side's SDP, candidates included. */
  get localSdp(): string {
    const sdp = this.pc.localDescription?.sdp;
    if (!sdp) throw new Error('No local description yet');
    return sdp;
  }

  /**
   * Resolves when ICE and DTLS are up and SRTP can flow; rejects with MediaPathNotConnected when they
   * fail, when the transport is closed first, or when `connectTimeoutMs` passes (then it is closed).
   */
  connected(): Promise<void> {
    if (!this.connection) return Promise.reject(new Error('No remote description yet: call acceptAnswer() first'));
    return this.connection;
  }

  onKey(listener: (key: string) => void): void {
    this.keyListeners.push(listener);
  }

  /** Hands every Opus packet the far end sends, decoded, to `listener` (a call's recording). */
  onAudio(listener: ReceivedAudioListener): void {
    this.decoder ??= new Decoder({ channels: 1, sample_rate: RECEIVED_AUDIO_RATE });
    this.audioListeners.push(listener);
  }

  /**
   * Plays a mono PCM prompt as Opus, one packet per 20 ms from now; resolves when its last packet
   * left or stop() ended it. One prompt at a time: a new play() stops the one before.
   */
  async play(audio: PcmAudio): Promise<PlaybackReport> {
    await this.connected();
    this.stop();
    const encoder = new OpusFrameEncoder(audio);
    const calledAt = performance.now();
    const dueAt = Date.now();
    let firstPacketAt = 0;
    const paced = pacePackets(
      () => encoder.nextFrame(),
      (payload, index, dueAt) => {
        if (index === 0) firstPacketAt = performance.now();
        this.sendOpus(payload, index === 0, dueAt);
      },
      FRAME_MS,
      [],
    );
    this.playing = paced;
    let result: PacedResult;
    try {
      result = await paced.done;
    } finally {
      if (this.playing === paced) this.playing = undefined;
    }
    return { ...result, firstPacketAfterMs: result.packets > 0 ? firstPacketAt - calledAt : 0, dueAt };
  }

  /** Stops the prompt playing, if any. */
  stop(): void {
    this.playing?.stop();
    this.playing = undefined;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stop();
    this.decoder?.drop(); // WebAssembly memory: freed now, not whenever the collector gets to it
    this.decoder = undefined;
    await this.pc.close();
  }

  private sendOpus(payload: Buffer, firstOfPrompt: boolean, dueAt: number): void {
    // The timestamp follows the grid's wall clock, so a pause between prompts shows as a gap.
    const timestamp = (this.timestampBase + Math.round(((dueAt - this.createdAt) * OPUS_RTP_CLOCK_RATE) / 1000)) >>> 0;
    this.sequenceNumber = (this.sequenceNumber + 1) & 0xffff;
    const header = new RtpHeader({ payloadType: 111, sequenceNumber: this.sequenceNumber, timestamp, marker: firstOfPrompt });
    void this.transceiver.sender.sendRtp(new RtpPacket(header, payload));
  }

  private hear(payload: Buffer, rtpTimestamp: number): void {
    let pcm: Uint8Array;
    try {
      pcm = this.decoder!.decode(payload);
    } catch {
      return; // a damaged packet is a gap in the recording, not the call's end
    }
    // Copied: the decoder's output is not necessarily 2-byte aligned, nor kept.
    const samples = new Int16Array(pcm.byteLength / 2);
    Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength).copy(Buffer.from(samples.buffer));
    for (const listener of this.audioListeners) listener(samples, rtpTimestamp);
  }

  private opusTypes(): Set<number> {
    return new Set(this.transceiver.codecs.filter((c) => c.mimeType.toLowerCase() === 'audio/opus').map((c) => c.payloadType));
  }

  private telephoneEventTypes(): Set<number> {
    return new Set(this.transceiver.codecs.filter((c) => c.mimeType.toLowerCase() === 'audio/telephone-event').map((c) => c.payloadType));
  }

  private gathered(): Promise<void> {
    if (this.pc.iceGatheringState === 'complete') return Promise.resolve();
    return new Promise((resolve) => {
      const { unSubscribe } = this.pc.iceGatheringStateChange.subscribe((state) => {
        if (state !== 'complete') return;
        unSubscribe();
        resolve();
      });
    });
  }

  private startConnecting(): void {
    const startedAt = performance.now();
    const elapsed = () => Math.round(performance.now() - startedAt);
    this.connection = new Promise<void>((resolve, reject) => {
      const fail = (reason: 'timeout' | 'ice-failed' | 'closed') => {
        clearTimeout(timer);
        unSubscribe();
        reject(new MediaPathNotConnected(reason, reason === 'timeout' ? this.connectTimeoutMs : elapsed()));
        void this.close();
      };
      const timer = setTimeout(() => fail('timeout'), this.connectTimeoutMs);
      const { unSubscribe } = this.pc.connectionStateChange.subscribe((state) => {
        if (state === 'connected') {
          clearTimeout(timer);
          unSubscribe();
          resolve();
        } else if (state === 'failed') fail('ice-failed');
        else if (state === 'closed') fail('closed');
      });
      if (this.pc.connectionState === 'connected') {
        clearTimeout(timer);
        unSubscribe();
        resolve();
      }
    });
    // A caller that never asks must not see an unhandled rejection.
    this.connection.catch(() => undefined);
  }
}

function peerConnection(options: MediaTransportOptions): RTCPeerConnection {
  const only = options.onlyLocalAddresses;
  return new RTCPeerConnection({
    codecs: { audio: codecs() },
    iceUseIpv6: false,
    iceAdditionalHostAddresses: options.hostAddresses,
    icePortRange: options.icePortRange,
    iceFilterCandidatePair: only ? (pair) => only.includes(pair.localCandidate.host) : undefined,
  });
}
