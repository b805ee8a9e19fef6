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
