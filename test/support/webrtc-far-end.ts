import { Encoder } from '@evan/opus';
import { RTCPeerConnection, RTCRtpCodecParameters, RtpHeader, TelephoneEventRtpPayload, type RTCRtpTransceiver } from 'werift';

export interface ReceivedRtp {
  sequenceNumber: number;
  timestamp: number;
  payloadType: number;
  payload: Buffer;
  at: number;
}

/** The keys of RFC 4733 §3.2 in event-code order. */
const DTMF_KEYS = '0123456789*#ABCD';

/**
 * A real WebRTC peer that stands for Meta's media edge in tests and the bench: it offers audio with
 * Opus and telephone-event/8000 as Meta's SDP does, as an ICE-lite agent with DTLS actpass, records
 * every RTP packet it receives, and presses keys as RFC 4733 events (Meta's documented DTMF: 500 ms
 * per key, the end packet sent three times).
 */
export class FarEndPeer {
  readonly received: ReceivedRtp[] = [];
  private readonly transceiver: RTCRtpTransceiver;
  private keySequence = Math.floor(Math.random() * 2 ** 16);
  private keyTimestamp = Math.floor(Math.random() * 2 ** 31);
  private audioSequence = Math.floor(Math.random() * 2 ** 16);
  private audioTimestamp = Math.floor(Math.random() * 2 ** 31);

  private constructor(private readonly pc: RTCPeerConnection) {
    this.transceiver = pc.addTransceiver('audio', { direction: 'sendrecv' });
    this.transceiver.onTrack.subscribe((track) =>
      track.onReceiveRtp.subscribe((rtp) =>
        this.received.push({
          sequenceNumber: rtp.header.sequenceNumber,
          timestamp: rtp.header.timestamp,
          payloadType: rtp.header.payloadType,
          payload: rtp.payload,
          at: performance.now(),
        }),
      ),
    );
  }

  /** Makes the offer (`offerSdp`), candidates included, on 127.0.0.1 only by default. */
  static async offer(options: FarEndOptions = {}): Promise<FarEndPeer> {
    const peer = new FarEndPeer(farEndConnection(options));
    await peer.pc.setLocalDescription(await peer.pc.createOffer());
    await peer.gathered();
    return peer;
  }

  /** Answers the worker's offer (a business-initiated call); the answer is `answerSdp`. */
  static async answer(offerSdp: string, options: FarEndOptions = {}): Promise<FarEndPeer> {
    const peer = new FarEndPeer(farEndConnection(options));
    await peer.pc.setRemoteDescription({ type: 'offer', sdp: offerSdp });
    await peer.pc.setLocalDescription(await peer.pc.createAnswer());
    await peer.gathered();
    return peer;
  }

  get offerSdp(): string {
    return this.pc.localDescription!.sdp;
  }

  get answerSdp(): string {
    return this.pc.localDescription!.sdp;
  }

  private gathered(): Promise<void> {
    return new Promise<void>((resolve) => {
      if (this.pc.iceGatheringState === 'complete') return resolve();
      this.pc.iceGatheringStateChange.subscribe((state) => state === 'complete' && resolve());
    });
  }

  async acceptAnswer(sdp: string): Promise<void> {
    await this.pc.setRemoteDescription({ type: 'answer', sdp });
  }

  connected(): Promise<void> {
    if (this.pc.connectionState === 'connected') return Promise.resolve();
    return new Promise((resolve) => this.pc.connectionStateChange.subscribe((state) => state === 'connected' && resolve()));
  }

  /** The address pair ICE chose, as "local:port -> remote:port". */
  selectedPair(): string | undefined {
    const pair = this.transceiver.sender.transport.iceTransport.connection.nominated;
    return pair
      ? `${pair.localCandidate.host}:${pair.localCandidate.port} -> ${pair.remoteCandidate.host}:${pair.remoteCandidate.port}`
      : undefined;
  }

  /** The received packets of one payload type, in sequence order. */
  packetsOf(mimeType: string): ReceivedRtp[] {
    const types = new Set(this.transceiver.codecs.filter((c) => c.mimeType.toLowerCase() === mimeType).map((c) => c.payloadType));
    return this.received.filter((p) => types.has(p.payloadType)).sort((a, b) => seqDelta(a.sequenceNumber, b.sequenceNumber));
  }

  /** Presses a key as RFC 4733 events: a start packet, updates every 50 ms, three end packets. */
  async pressKey(key: string, durationMs = 500): Promise<void> {
    const event = DTMF_KEYS.indexOf(key);
    if (event < 0) throw new Error(`Not a DTMF key: ${key}`);
    const codec = this.transceiver.codecs.find((c) => c.mimeType.toLowerCase() === 'audio/telephone-event');
    if (!codec) throw new Error('telephone-event was not negotiated');
    const ticksPerMs = codec.clockRate / 1000;
    this.keyTimestamp = (this.keyTimestamp + 48_000) >>> 0;
    const send = (duration: number, end: boolean, marker: boolean) => {
      const payload = new TelephoneEventRtpPayload({ event, end, volume: 10, duration: Math.round(duration * ticksPerMs) }).serialize();
      this.keySequence = (this.keySequence + 1) & 0xffff;
      const header = new RtpHeader({
        payloadType: codec.payloadType,
        ssrc: this.transceiver.sender.ssrc,
        sequenceNumber: this.keySequence,
        timestamp: this.keyTimestamp,
        marker,
      });
      return this.transceiver.sender.transport.sendRtp(payload, header);
    };
    await send(0, false, true);
    for (let elapsed = 50; elapsed < durationMs; elapsed += 50) {
      await sleep(50);
      await send(elapsed, false, false);
    }
    for (let i = 0; i < 3; i++) await send(durationMs, true, false);
  }

  /**
   * Speaks: mono 16-bit PCM at 8 kHz sent as Opus, one 20 ms packet every 20 ms (the user's voice
   * on a WhatsApp call). Resolves once the last packet left.
   */
  async sendAudio(samples: Int16Array): Promise<void> {
    const codec = this.transceiver.codecs.find((c) => c.mimeType.toLowerCase() === 'audio/opus');
    if (!codec) throw new Error('Opus was not negotiated');
    const encoder = new Encoder({ channels: 1, sample_rate: 8000, application: 'voip' });
    const perFrame = 160;
    const startedAt = performance.now();
    for (let frame = 0; frame * perFrame < samples.length; frame++) {
      const pcm = new Int16Array(perFrame);
      pcm.set(samples.subarray(frame * perFrame, (frame + 1) * perFrame));
      this.audioSequence = (this.audioSequence + 1) & 0xffff;
      this.audioTimestamp = (this.audioTimestamp + 960) >>> 0;
      const header = new RtpHeader({
        payloadType: codec.payloadType,
        ssrc: this.transceiver.sender.ssrc,
        sequenceNumber: this.audioSequence,
        timestamp: this.audioTimestamp,
        marker: frame === 0,
      });
      await this.transceiver.sender.transport.sendRtp(Buffer.from(encoder.encode(pcm)), header);
      await sleep(Math.max(0, startedAt + (frame + 1) * 20 - performance.now()));
    }
  }

  async close(): Promise<void> {
    await this.pc.close();
  }
}

export interface FarEndOptions {
  /** The one address to gather and pair on (default 127.0.0.1). */
  address?: string;
  /** Advertise ICE lite, as Meta's edge does (default true). */
  iceLite?: boolean;
}

function farEndConnection(options: FarEndOptions): RTCPeerConnection {
  const address = options.address ?? '127.0.0.1';
  return new RTCPeerConnection({
    codecs: {
      audio: [
        new RTCRtpCodecParameters({
          mimeType: 'audio/opus',
          clockRate: 48_000,
          channels: 2,
          payloadType: 111,
          parameters: 'maxaveragebitrate=20000;maxplaybackrate=16000;minptime=20;sprop-maxcapturerate=16000;useinbandfec=1',
        }),
        new RTCRtpCodecParameters({ mimeType: 'audio/telephone-event', clockRate: 8000, channels: 1, payloadType: 126 }),
      ],
    },
    iceLite: options.iceLite ?? true,
    iceUseIpv6: false,
    iceAdditionalHostAddresses: [address],
    iceFilterCandidatePair: (pair) => pair.localCandidate.host === address,
  });
}

function seqDelta(a: number, b: number): number {
  return ((a - b + 0x8000) & 0xffff) - 0x8000;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
