import { WebRtcMediaTransport, type MediaTransportOptions } from '../webrtc/webrtc-media-transport.js';
import type { CallSignalBus } from './call-signal-bus.js';
import type { CallSignal } from './call-signals.js';
import { acceptCall, preAcceptCall, type GraphNumber } from './graph-calling.js';
import { WhatsAppCall } from './whatsapp-call.js';

export interface AnswerCallOptions {
  media?: MediaTransportOptions;
  /** Meta's `biz_opaque_callback_data`: our record's id. */
  tracking: string;
}

/**
 * A WhatsApp user's call answered by this worker (API.md §15): a WebRTC answer to Meta's SDP
 * offer goes to Meta with `pre_accept` (the media path comes up while the user still hears it
 * ring), then with `accept`. It is answered once the media path is up; Meta's `terminate`
 * or {@link hangUp} ends it.
 */
export class UserInitiatedCall extends WhatsAppCall {
  readonly ringing = Promise.resolve();
  readonly answered: Promise<void>;

  private constructor(callId: string, media: WebRtcMediaTransport, number: GraphNumber) {
    super(callId, media, number);
    this.answered = Promise.race([
      media.connected(),
      this.ended.then((end) => Promise.reject(new Error(`The call ended before it was answered (${end.kind})`))),
    ]);
    this.answered.catch(() => undefined);
    this.watchMediaPath();
  }

  /**
   * Answers the call. Listens to the number's signals first, so a `terminate` that comes while
   * Meta is asked to accept is not missed. Throws when Meta refuses `pre_accept` or `accept`
   * (the user hung up meanwhile, say); nothing is left open then.
   */
  static async answer(number: GraphNumber, callId: string, offerSdp: string, bus: CallSignalBus, options: AnswerCallOptions) {
    const early: CallSignal[] = [];
    let call: UserInitiatedCall | undefined = undefined;
    const unsubscribe = await bus.subscribe(number.phoneNumberId, (signal) => {
      if (signal.callId !== callId) return;
      if (call) call.receive(signal);
      else early.push(signal);
    });
    let media: WebRtcMediaTransport | undefined;
    try {
      media = await WebRtcMediaTransport.answer(offerSdp, options.media);
      await preAcceptCall(number, callId, media.localSdp);
      await acceptCall(number, callId, media.localSdp, options.tracking);
    } catch (err) {
      await unsubscribe();
      await media?.close();
      throw err;
    }
    call = new UserInitiatedCall(callId, media, number);
    call.unsubscribe = unsubscribe;
    for (const signal of early) call.receive(signal);
    return call;
  }

  /** Meta's statuses and SDP are about calls a business places: nothing in them changes an answered call. */
  protected receiveOther(): void {}
}
