import type { CallEnding, CallProgress } from '../call-progress.js';
import { toAnsweredBy } from '../ivr-enums.js';

/** Form fields of a Twilio-compatible callback (or the same fields read from the REST API). */
export type TwilioParams = Record<string, string>;

export const TWILIO_ENDINGS: Record<string, CallEnding> = {
  completed: 'completed',
  busy: 'busy',
  'no-answer': 'no-answer',
  failed: 'failed',
  canceled: 'canceled',
};

/** What a Twilio `CallStatus` report means for the call, or null for statuses that change nothing. */
export function twilioProgress(params: TwilioParams): CallProgress | null {
  const at = twilioTimestamp(params);
  // Sent with answering-machine detection only: who (or what) picked up.
  const answeredBy = toAnsweredBy(params.AnsweredBy);
  switch (params.CallStatus) {
    case 'queued':
    case 'initiated':
      return params.CallSid ? { kind: 'initiated', at, callId: params.CallSid } : null;
    case 'ringing':
      return { kind: 'ringing', at };
    case 'in-progress':
      return { kind: 'answered', at, answeredBy };
  }
  const ending = TWILIO_ENDINGS[params.CallStatus];
  if (!ending) return null;
  const duration = Number(params.CallDuration);
  const providerError = params.ErrorCode
    ? `Provider error ${params.ErrorCode}${params.ErrorMessage ? `: ${params.ErrorMessage}` : ''}`
    : null;
  return {
    kind: 'ended',
    at,
    ending,
    durationSeconds: params.CallDuration !== undefined && Number.isFinite(duration) ? duration : null,
    hangupCause: ending === 'failed' && params.SipResponseCode ? `SIP_${params.SipResponseCode}` : null,
    errorMessage: providerError,
    answeredBy,
  };
}

/** The provider's event time (RFC 2822 `Timestamp`) when it sends one; else now. */
export function twilioTimestamp(params: TwilioParams): Date {
  const parsed = params.Timestamp ? new Date(params.Timestamp) : null;
  return parsed && !Number.isNaN(parsed.getTime()) ? parsed : new Date();
}
