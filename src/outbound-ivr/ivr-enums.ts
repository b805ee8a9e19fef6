/** Integer enums of API.md §10 and §11. Persisted and on the wire: values never change. */

export enum OutboundIvrStatus {
  Pending = 0,
  Initiated = 1,
  Ringing = 2,
  InProgress = 3,
  Completed = 4,
  NoAnswer = 5,
  Busy = 6,
  Failed = 7,
  Cancelled = 8,
}

export enum OutboundIvrResult {
  None = 0,
  DigitPressed = 1,
  NoInput = 2,
  InvalidInput = 3,
  NotAnswered = 4,
  DestinationBusy = 5,
  TechnicalFailure = 6,
  Cancelled = 7,
  /** Twilio (or the sandbox) found a machine at the other end: the IVR was not run (API.md §14). */
  AnsweringMachine = 8,
  /** The WhatsApp user declined the call permission request: no call was placed (API.md §15). */
  PermissionDenied = 9,
}

/** What a call does when a machine answers (API.md §14). */
export const MACHINE_DETECTION = ['Off', 'Hangup', 'LeaveMessage'] as const;
export type MachineDetection = (typeof MACHINE_DETECTION)[number];

/** Twilio's `AnsweredBy` values, kept as sent on the record's `answeredBy`. */
export const ANSWERED_BY = [
  'human',
  'machine_start',
  'machine_end_beep',
  'machine_end_silence',
  'machine_end_other',
  'fax',
  'unknown',
] as const;
export type AnsweredBy = (typeof ANSWERED_BY)[number];

/** Whether `answeredBy` names a machine (an answering machine or a fax), not a person or an undecided answer. */
export function isMachine(answeredBy: string | null | undefined): boolean {
  return !!answeredBy && (answeredBy.startsWith('machine_') || answeredBy === 'fax');
}

/** Twilio's `AnsweredBy` if it is one of its documented values, else null. */
export function toAnsweredBy(value: string | undefined): AnsweredBy | null {
  return (ANSWERED_BY as readonly string[]).includes(value ?? '') ? (value as AnsweredBy) : null;
}

export enum OutboundIvrAudioType {
  AudioFile = 1,
  TextToSpeech = 2,
}

/** `status` of the Call Webhook. */
export enum CallWebhookStatus {
  Active = 0,
  Completed = 1,
  Missed = 2,
  RejectedByCaller = 3,
  RejectedByCallee = 4,
  NoAnswer = 5,
  Cancelled = 6,
  Failed = 7,
}

export enum CallType {
  Inbound = 1,
  Outbound = 2,
}

const TERMINAL = new Set([
  OutboundIvrStatus.Completed,
  OutboundIvrStatus.NoAnswer,
  OutboundIvrStatus.Busy,
  OutboundIvrStatus.Failed,
  OutboundIvrStatus.Cancelled,
]);

export function isFinished(status: OutboundIvrStatus): boolean {
  return TERMINAL.has(status);
}
