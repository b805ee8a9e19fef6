import { OutboundIvrResult, OutboundIvrStatus, isFinished, isMachine, type AnsweredBy } from './ivr-enums.js';
import type { OutboundIvrRequestEntity } from './outbound-ivr-request.entity.js';

/** How a call ended, as a voice provider reports it. */
export type CallEnding = 'completed' | 'no-answer' | 'busy' | 'failed' | 'canceled';

/** What a voice provider (or the caller, for cancel) reports about a call. */
export type CallProgress =
  | { kind: 'initiated'; at: Date; callId: string }
  | { kind: 'ringing'; at: Date }
  | { kind: 'answered'; at: Date; answeredBy?: AnsweredBy | null }
  | {
      kind: 'ended';
      at: Date;
      ending: CallEnding;
      durationSeconds?: number | null;
      hangupCause?: string | null;
      errorMessage?: string | null;
      answeredBy?: AnsweredBy | null;
      /** The result, when the ending's own does not say it (a WhatsApp user declined the permission request). */
      result?: OutboundIvrResult;
    };

/** A call's recording, once in our storage. */
export interface StoredRecording {
  mediaId: string;
  url: string;
  durationMs: number;
}

/** The record's fields a stored recording sets. */
export function recordingChanges(recording: StoredRecording, at = new Date()) {
  return {
    recordingMediaId: recording.mediaId,
    recordingUrl: recording.url,
    recordingDurationMs: recording.durationMs,
    recordedAt: at,
    recordingError: null,
  };
}

type RecordChanges = Partial<
  Pick<
    OutboundIvrRequestEntity,
    | 'status'
    | 'result'
    | 'callId'
    | 'initiatedAt'
    | 'ringingAt'
    | 'answeredAt'
    | 'completedAt'
    | 'callDurationSeconds'
    | 'hangupCause'
    | 'errorMessage'
    | 'answeredBy'
    | 'recordingMediaId'
    | 'recordingUrl'
    | 'recordingDurationMs'
    | 'recordedAt'
    | 'recordingError'
    | 'awaitingPermission'
  >
>;

const RANK: Record<OutboundIvrStatus, number> = {
  [OutboundIvrStatus.Pending]: 0,
  [OutboundIvrStatus.Initiated]: 1,
  [OutboundIvrStatus.Ringing]: 2,
  [OutboundIvrStatus.InProgress]: 3,
  [OutboundIvrStatus.Completed]: 4,
  [OutboundIvrStatus.NoAnswer]: 4,
  [OutboundIvrStatus.Busy]: 4,
  [OutboundIvrStatus.Failed]: 4,
  [OutboundIvrStatus.Cancelled]: 4,
};

const ENDINGS: Record<CallEnding, { status: OutboundIvrStatus; result: OutboundIvrResult | null; cause: string; message: string | null }> =
  {
    completed: { status: OutboundIvrStatus.Completed, result: null, cause: 'NORMAL_CLEARING', message: null },
    'no-answer': {
      status: OutboundIvrStatus.NoAnswer,
      result: OutboundIvrResult.NotAnswered,
      cause: 'NO_ANSWER',
      message: 'The destination did not answer.',
    },
    busy: {
      status: OutboundIvrStatus.Busy,
      result: OutboundIvrResult.DestinationBusy,
      cause: 'USER_BUSY',
      message: 'The destination was busy.',
    },
    failed: {
      status: OutboundIvrStatus.Failed,
      result: OutboundIvrResult.TechnicalFailure,
      cause: 'CALL_FAILED',
      message: 'The call could not be completed.',
    },
    canceled: {
      status: OutboundIvrStatus.Cancelled,
      result: OutboundIvrResult.Cancelled,
      cause: 'ORIGINATOR_CANCEL',
      message: 'The call was cancelled.',
    },
  };

/**
 * The call's state machine (API.md §10): Pending → Initiated → Ringing → InProgress → a final
 * status. Returns the changes `progress` makes to the record, or null when it changes nothing:
 * a report that arrives twice or late never moves a call backwards or out of a final status.
 */
export function applyProgress(record: OutboundIvrRequestEntity, progress: CallProgress): RecordChanges | null {
  if (isFinished(record.status)) {
    // A call cancelled while it was being placed still learns its id, so it can be hung up.
    return progress.kind === 'initiated' && record.callId === null ? { callId: progress.callId } : null;
  }
  switch (progress.kind) {
    case 'initiated':
      return forward(record, OutboundIvrStatus.Initiated, {
        callId: record.callId ?? progress.callId,
        initiatedAt: record.initiatedAt ?? progress.at,
      });
    case 'ringing':
      return forward(record, OutboundIvrStatus.Ringing, { ringingAt: record.ringingAt ?? progress.at });
    case 'answered':
      return forward(record, OutboundIvrStatus.InProgress, {
        ringingAt: record.ringingAt ?? progress.at,
        answeredAt: record.answeredAt ?? progress.at,
        // The first verdict of the provider's machine detection stays.
        ...(!record.answeredBy && progress.answeredBy && { answeredBy: progress.answeredBy }),
      });
    case 'ended':
      return end(record, progress);
  }
}

function forward(record: OutboundIvrRequestEntity, status: OutboundIvrStatus, timestamps: RecordChanges): RecordChanges | null {
  const changes: RecordChanges = Object.fromEntries(
    Object.entries(timestamps).filter(([key, value]) => record[key as keyof RecordChanges] !== value),
  );
  if (RANK[status] > RANK[record.status]) changes.status = status;
  return Object.keys(changes).length > 0 ? changes : null;
}

function end(record: OutboundIvrRequestEntity, progress: Extract<CallProgress, { kind: 'ended' }>): RecordChanges {
  const answeredBy = record.answeredBy ?? progress.answeredBy ?? null;
  // A machine's answer is an answer, even when its report arrives only with the end of the call.
  const byMachine = progress.ending === 'completed' && isMachine(answeredBy);
  const answered = record.answeredAt !== null || byMachine;
  // A call that never connected cannot have "completed", whatever the provider calls it.
  const ending = progress.ending === 'completed' && !answered ? 'failed' : progress.ending;
  const outcome = ENDINGS[ending];
  const measured = record.answeredAt ? (progress.at.getTime() - record.answeredAt.getTime()) / 1000 : 0;
  return {
    ...(!record.answeredBy && answeredBy && { answeredBy }),
    // A call that waited for the user's permission waits no more, however it ended.
    ...(record.awaitingPermission && { awaitingPermission: false }),
    status: outcome.status,
    result: progress.result ?? (byMachine ? OutboundIvrResult.AnsweringMachine : (outcome.result ?? dialogResult(record))),
    completedAt: progress.at,
    callDurationSeconds: seconds(progress.durationSeconds ?? measured),
    hangupCause: (progress.hangupCause ?? outcome.cause).slice(0, 100),
    errorMessage: (progress.errorMessage ?? record.dialog?.error ?? outcome.message)?.slice(0, 1000) ?? null,
  };
}

/** The outcome of the dialog; a callee who hung up while a question waited for a digit gave no input. */
function dialogResult(record: OutboundIvrRequestEntity): OutboundIvrResult {
  const dialog = record.dialog;
  if (!dialog) return OutboundIvrResult.None;
  return dialog.stepId !== null && dialog.result === OutboundIvrResult.None ? OutboundIvrResult.NoInput : dialog.result;
}

/** Whole seconds that fit the column, whatever a provider reports. */
function seconds(value: number): number {
  return Number.isFinite(value) ? Math.min(Math.max(Math.round(value), 0), 2_147_483_647) : 0;
}
