import { MediaPathNotConnected, MediaThreadLost } from '../webrtc/media-path.errors.js';
import type { WebRtcMediaTransport } from '../webrtc/webrtc-media-transport.js';
import type { CallSignal } from './call-signals.js';
import { terminateCall, type GraphNumber } from './graph-calling.js';

/** How a WhatsApp call ended before or while it ran. */
export type CallEnd =
  | { kind: 'rejected' }
  | { kind: 'terminated'; status: string; durationSeconds: number | null }
  | { kind: 'no-answer' }
  | { kind: 'media-failed'; message: string };

/**
 * One WhatsApp call whose media runs in this worker, either direction: `ringing` and `answered`
 * resolve as the call gets there, `ended` resolves once, with why; `media` carries the prompts out
 * and the keys in. What ends it is shared: Meta's `terminate` webhook, or {@link hangUp} from our side.
 */
export abstract class WhatsAppCall {
  abstract readonly ringing: Promise<void>;
  abstract readonly answered: Promise<void>;
  readonly ended: Promise<CallEnd>;
  private finish!: (end: CallEnd) => void;
  private finished = false;
  private hangingUp = false;
  /** Stops the call's subscription to its number's signals. */
  protected unsubscribe: (() => Promise<void>) | undefined;

  protected constructor(
    readonly callId: string,
    readonly media: WebRtcMediaTransport,
    private readonly number: GraphNumber,
  ) {
    this.ended = new Promise((resolve) => (this.finish = resolve));
  }

  /** Ends the call from our side (`action: terminate`); `end` is what `ended` resolves with. */
  async hangUp(end: CallEnd = { kind: 'terminated', status: 'COMPLETED', durationSeconds: null }): Promise<void> {
    if (this.finished || this.hangingUp) return;
    // Signals Meta sends while it terminates (its own terminate webhook) do not change why the call ended.
    this.hangingUp = true;
    this.clearTimers();
    await terminateCall(this.number, this.callId).catch(() => undefined);
    this.end(end);
  }

  /** A signal of this call from Meta's webhooks. */
  receive(signal: CallSignal): void {
    if (this.finished || this.hangingUp) return;
    if (signal.kind === 'terminate') this.end({ kind: 'terminated', status: signal.status, durationSeconds: signal.durationSeconds });
    else this.receiveOther(signal);
  }

  /** The signals other than `terminate`, as the direction of the call reads them. */
  protected abstract receiveOther(signal: CallSignal): void;

  /** Once both descriptions are set: a media path that fails (or never comes up in time) ends the call. */
  protected watchMediaPath(): void {
    this.media.connected().catch((err: unknown) => {
      const message = err instanceof MediaPathNotConnected || err instanceof MediaThreadLost ? err.message : String(err);
      void this.hangUp({ kind: 'media-failed', message });
    });
    // Media lost later (the thread stopped mid-call) ends the call too, not the next prompt or time limit.
    this.media.onLost((err) => void this.hangUp({ kind: 'media-failed', message: err.message }));
  }

  /** Timers of the direction that must not fire once the call is ending. */
  protected clearTimers(): void {}

  protected end(end: CallEnd): void {
    if (this.finished) return;
    this.finished = true;
    this.clearTimers();
    this.finish(end);
    void this.media.close();
    void this.unsubscribe?.();
  }
}
