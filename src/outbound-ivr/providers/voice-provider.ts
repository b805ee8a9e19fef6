import type { Channel } from '../../channels/channel.entity.js';
import type { CallProgress } from '../call-progress.js';
import type { DialogInput } from '../dialog/dialog-engine.js';
import type { Instructions } from '../dialog/dialog-state.js';
import type { OutboundIvrRequestEntity } from '../outbound-ivr-request.entity.js';

/** How a provider reports a call it is running; bound to one call record. */
export interface CallSession {
  /** False once the call is finished (cancelled, or ended by an earlier report). */
  progress(progress: CallProgress): Promise<boolean>;
  converse(input: DialogInput, turn?: number): Promise<Instructions>;
  /** False once the call is finished. */
  isLive(): Promise<boolean>;
  /** Runs steps that need no pause between them as one write (absent inside a batch). */
  batch?(work: (session: CallSession) => Promise<void>): Promise<void>;
}

/** A temporary failure: nothing was placed, and trying again later may work. */
export class VoiceProviderUnavailable extends Error {}

/** The request may or may not have reached the provider (a timeout, a reset, a 5xx): retrying could call twice. */
export class VoiceProviderAmbiguous extends Error {}

/** The provider refused the call for good (bad number, bad credentials). */
export class VoiceProviderRefused extends Error {
  constructor(
    message: string,
    readonly hangupCause: string,
  ) {
    super(message);
  }
}

/** Places calls for channels whose voice provider it is (`Channel.voiceProvider`). */
export interface VoiceProvider {
  /**
   * Places the call and reports through `session`: at least `initiated` with the call id before
   * it returns. A provider that simulates calls may play the whole call out before returning.
   */
  call(channel: Channel, request: OutboundIvrRequestEntity, session: CallSession): Promise<void>;
  /** Ends a call that was cancelled while the provider was running it. */
  hangUp(channel: Channel, callId: string): Promise<void>;
  /** The provider's account of how a call ended, or null while it runs or when the provider keeps none. */
  finalReport(channel: Channel, callId: string): Promise<CallProgress | null>;
}
