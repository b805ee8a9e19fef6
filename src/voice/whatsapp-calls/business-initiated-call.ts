import { WebRtcMediaTransport, type MediaTransportOptions } from '../webrtc/webrtc-media-transport.js';
import type { CallSignalBus } from './call-signal-bus.js';
import type { CallSignal } from './call-signals.js';
import { connectCall, type GraphNumber } from './graph-calling.js';
import { WhatsAppCall } from './whatsapp-call.js';

export interface PlaceCallOptions {
  media?: MediaTransportOptions;
  /** How long the user's phone may ring before the call is given up (terminated). */
  ringTimeoutMs?: number;
  /** Meta's `biz_opaque_callback_data`: our record's id, so the webhooks can be matched without the call id too. */
  tracking: string;
}

const DEFAULT_RING_TIMEOUT_MS = 60_000;
const DEFAULT_ANSWER_TIMEOUT_MS = 10_000;

/**
 * One business-initiated WhatsApp call in the worker: the WebRTC offer goes to Meta with
 * `action: connect`; Meta's SDP answer (the `connect` webhook) is applied; `ringing` and `answered`
 * resolve as RINGING and ACCEPTED arrive (answered also waits for the media path); `ended`
 * resolves once, with why. The media (prompts out, keys in) is `media`.
 */
export class BusinessInitiatedCall extends WhatsAppCall {
  readonly ringing: Promise<void>;
  readonly answered: Promise<void>;
  /** When ACCEPTED reached this process (performance.now()). */
  acceptedAt: number | undefined;
  private markRinging!: () => void;
  private markAccepted!: () => void;
  private markAnswerApplied!: () => void;
  private ringTimer: NodeJS.Timeout | undefined;
  /** Runs from ACCEPTED until Meta's SDP answer is in: an accepted call whose answer never comes must still end. */
  private answerTimer: NodeJS.Timeout | undefined;
  private answerTimeoutMs = DEFAULT_ANSWER_TIMEOUT_MS;
  private answerReceived = false;

  private constructor(callId: string, media: WebRtcMediaTransport, number: GraphNumber) {
    super(callId, media, number);
    this.ringing = new Promise((resolve) => (this.markRinging = resolve));
    const accepted = new Promise<void>((resolve) => (this.markAccepted = resolve));
    const answerApplied = new Promise<void>((resolve) => (this.markAnswerApplied = resolve));
    // Answered once Meta says ACCEPTED and the media path is up (it starts when Meta's SDP answer is
    // applied); a call that ends first never is.
    this.answered = Promise.race([
      Promise.all([accepted, answerApplied.then(() => media.connected())]).then(() => undefined),
      this.ended.then((end) => Promise.reject(new Error(`The call ended before it was answered (${end.kind})`))),
    ]);
    this.answered.catch(() => undefined);
  }

  /**
   * Places the call. Listens to the number's signals before Meta can send any; those that arrive
   * before Meta's answer names the call are kept and sorted out once it does.
   */
  static async place(number: GraphNumber, to: string, bus: CallSignalBus, options: PlaceCallOptions): Promise<BusinessInitiatedCall> {
    const media = await WebRtcMediaTransport.offer(options.media);
    const early: CallSignal[] = [];
    let call: BusinessInitiatedCall | undefined;
    let unsubscribe: (() => Promise<void>) | undefined;
    try {
      unsubscribe = await bus.subscribe(number.phoneNumberId, (signal) => {
        if (!call) early.push(signal);
        else if (signal.callId === call.callId) call.receive(signal);
      });
      const callId = await connectCall(number, to, media.localSdp, options.tracking);
      call = new BusinessInitiatedCall(callId, media, number);
      call.unsubscribe = unsubscribe;
      call.answerTimeoutMs = options.media?.connectTimeoutMs ?? DEFAULT_ANSWER_TIMEOUT_MS;
    } catch (err) {
      await unsubscribe?.();
      await media.close();
      throw err;
    }
    call.ringTimer = setTimeout(() => void call.hangUp({ kind: 'no-answer' }), options.ringTimeoutMs ?? DEFAULT_RING_TIMEOUT_MS);
    for (const signal of early) if (signal.callId === call.callId) call.receive(signal);
    return call;
  }

  protected receiveOther(signal: CallSignal): void {
    if (signal.kind === 'connect' && signal.sdpType === 'answer') {
      // Meta may deliver a webhook twice: only the first answer is the call's.
      if (this.answerReceived) return;
      this.answerReceived = true;
      this.media.acceptAnswer(signal.sdp).then(
        () => {
          clearTimeout(this.answerTimer);
          this.markAnswerApplied();
          this.watchMediaPath();
        },
        (err: unknown) => void this.hangUp({ kind: 'media-failed', message: `Meta's SDP answer could not be applied: ${String(err)}` }),
      );
    } else if (signal.kind === 'status') {
      if (signal.status === 'RINGING') this.markRinging();
      else if (signal.status === 'ACCEPTED') {
        this.acceptedAt ??= performance.now();
        clearTimeout(this.ringTimer);
        if (!this.answerReceived && !this.answerTimer) this.answerTimer = setTimeout(() => this.answerMissing(), this.answerTimeoutMs);
        this.markRinging();
        this.markAccepted();
      } else this.end({ kind: 'rejected' });
    }
  }

  private answerMissing(): void {
    const message = `Meta reported the call accepted but sent no SDP answer within ${this.answerTimeoutMs} ms.`;
    void this.hangUp({ kind: 'media-failed', message });
  }

  protected override clearTimers(): void {
    clearTimeout(this.ringTimer);
    clearTimeout(this.answerTimer);
  }
}
