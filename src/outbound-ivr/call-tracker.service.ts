import { Injectable } from '@nestjs/common';
import pLimit, { type LimitFunction } from 'p-limit';
import { AppConfig } from '../config/app-config.js';
import { Outbox, type OutboxEntry } from '../queue/outbox.service.js';
import { JobName } from '../queue/queue-names.js';
import { toWebhookPayload } from './dto/outbound-ivr-request.dto.js';
import { CallReportsService, type CallAnalysisText, type CallReport } from './call-reports.service.js';
import { recordingChanges, type CallProgress, type StoredRecording } from './call-progress.js';
import type { DialogInput } from './dialog/dialog-engine.js';
import type { Instructions } from './dialog/dialog-state.js';
import { CallType, CallWebhookStatus, isFinished, OutboundIvrResult, OutboundIvrStatus } from './ivr-enums.js';
import { LiveCall } from './live-call.js';
import { SendGovernor } from '../governor/send-governor.service.js';
import type { OutboundIvrRequestEntity } from './outbound-ivr-request.entity.js';
import { OutboundIvrRequestsRepository } from './outbound-ivr-requests.repository.js';
import type { CallSession } from './providers/voice-provider.js';
import { inTransaction } from '../database/transactions.js';
import { transcriptText, type CallAnalysis } from '../call-intelligence/call-analysis.js';
import { CallIntelligenceService } from '../call-intelligence/call-intelligence.service.js';
import { WebhookEventType, WebhookKind } from '../webhooks/webhook-kind.js';
import { WebhookPublisher } from '../webhooks/webhook-publisher.js';

/** Names one call record; provider callbacks resolve it before they reach the tracker. */
export interface CallRef {
  id: string;
  workspaceId: string;
}

const CALL_WEBHOOK_STATUS: Partial<Record<OutboundIvrStatus, CallWebhookStatus>> = {
  [OutboundIvrStatus.Completed]: CallWebhookStatus.Completed,
  [OutboundIvrStatus.NoAnswer]: CallWebhookStatus.NoAnswer,
  [OutboundIvrStatus.Busy]: CallWebhookStatus.RejectedByCallee,
  [OutboundIvrStatus.Failed]: CallWebhookStatus.Failed,
  [OutboundIvrStatus.Cancelled]: CallWebhookStatus.Cancelled,
};

/**
 * The one place a call record changes once placed. Every piece of work holds the record's row
 * lock for its transaction, so reports racing each other apply one at a time; when the work
 * finishes the call, its outcome webhooks and timeline event are written in the same transaction.
 */
@Injectable()
export class CallTracker {
  /**
   * Hundreds of calls run at once in a worker, far more than its database connections: their
   * database work takes turns here instead of timing out in the pool, leaving connections for
   * the process's other jobs.
   */
  private readonly databaseTurns: LimitFunction;
  private readonly callIntelligenceWaitMs: number;

  constructor(
    private readonly requests: OutboundIvrRequestsRepository,
    private readonly reports: CallReportsService,
    private readonly outbox: Outbox,
    private readonly governor: SendGovernor,
    private readonly intelligence: CallIntelligenceService,
    private readonly webhooks: WebhookPublisher,
    config: AppConfig,
  ) {
    this.databaseTurns = pLimit(Math.max(2, Math.floor(config.database.poolSize / 2)));
    this.callIntelligenceWaitMs = config.voice.callIntelligenceWaitMs;
  }

  /** Runs database work of a call in its turn (see {@link databaseTurns}). */
  inTurn<T>(work: () => Promise<T>): Promise<T> {
    return this.databaseTurns(work);
  }

  /** Applies a provider's report. Returns false once the call is finished (callers stop playing it). */
  async progress(ref: CallRef, progress: CallProgress): Promise<boolean> {
    return (await this.withCall(ref, (call) => Promise.resolve(call.progress(progress)))) ?? false;
  }

  /** One exchange with the callee: the call was answered, a digit was pressed, or nothing was. */
  async converse(ref: CallRef, input: DialogInput, turn?: number): Promise<Instructions> {
    return (await this.withCall(ref, (call) => Promise.resolve(call.converse(input, turn)))) ?? { play: [], gather: null, turn: -1 };
  }

  async isLive(ref: CallRef): Promise<boolean> {
    const status = await this.inTurn(() => this.requests.statusOf(ref.workspaceId, ref.id));
    return status !== null && !isFinished(status);
  }

  /**
   * Runs a whole stretch of a call in one transaction: a provider that needs no pause between
   * steps (the sandbox at zero durations) reports them all with one write.
   */
  async batch(ref: CallRef, work: (session: CallSession) => Promise<void>): Promise<void> {
    await this.withCall(ref, (call) =>
      work({
        progress: (progress) => Promise.resolve(call.progress(progress)),
        converse: (input, turn) => Promise.resolve(call.converse(input, turn)),
        isLive: () => Promise.resolve(call.live),
      }),
    );
  }

  /** Runs `work` on the call under its row lock; its jobs (webhooks, hang-up) are pushed once the transaction commits. */
  private async withCall<T>(ref: CallRef, work: (call: LiveCall) => Promise<T>): Promise<T | undefined> {
    const result = await this.inTurn(() =>
      inTransaction(async () => {
        const requests = this.requests;
        const record = await requests.findById(ref.workspaceId, ref.id, { lock: true });
        if (!record) return undefined;
        const call = new LiveCall(record);
        const value = await work(call);
        // A recorded call that ends before its recording is stored, or whose stored recording is
        // analysed now: its Call Webhook waits for them (at most CALL_INTELLIGENCE_WAIT).
        const analysing = call.finishedNow && (await this.startAnalysis(record, call.changes));
        const waits = call.finishedNow && (waitsForRecording(record) || analysing);
        if (waits) call.changes.callWebhookWaiting = record.callWebhookWaiting = true;
        if (Object.keys(call.changes).length > 0) await requests.update(ref.workspaceId, { id: ref.id }, call.changes);
        if (call.finishedNow) await this.report(record, !waits);
        if (call.needsHangUp) {
          const hangUp: OutboxEntry<JobName.HangUpIvrCall> = {
            jobName: JobName.HangUpIvrCall,
            workspaceId: ref.workspaceId,
            payload: { requestId: ref.id },
          };
          await this.outbox.enqueue([hangUp]);
        }
        return { value, ended: call.finishedNow ? record.channelId : null };
      }),
    );
    // Every end of a call passes here (reports, cancellation, the sweeper): its concurrent place on the channel is free.
    if (result?.ended) await this.governor.callEnded(result.ended, ref.id);
    return result?.value;
  }

  /**
   * A recording is stored (or will never be: `error`). A Call Webhook waiting for it goes now, and
   * the call's timeline event learns the URL. False when the call already had one (a repeated
   * report): the caller discards its copy.
   */
  async recordingSettled(ref: CallRef, outcome: { recording: StoredRecording } | { error: string }): Promise<boolean> {
    const settled = await this.underLock(ref, async (record) => {
      if (record.recordingMediaId) return { changes: {}, value: false };
      const changes: Partial<OutboundIvrRequestEntity> =
        'recording' in outcome ? recordingChanges(outcome.recording) : { recordingError: outcome.error.slice(0, 1000) };
      Object.assign(record, changes);
      // An analysed recording's Call Webhook waits on for the analysis.
      const analysing = !isFinished(record.status) ? false : await this.startAnalysis(record, changes);
      if (record.callWebhookWaiting && !analysing) {
        await this.reports.sendCallWebhook(this.callReportOf(record));
        changes.callWebhookWaiting = false;
      } else if (isFinished(record.status)) {
        // Later than the Call Webhook's wait: the call's timeline event is already written without it.
        await this.reports.annotateRecording(this.callReportOf(record));
      }
      return { changes, value: true };
    });
    return settled ?? false;
  }

  /**
   * The recording's analysis is done, or failed for good (`error`). A Call Webhook still waiting
   * goes now, with it; one that went without it (the wait was over) is followed by a
   * `call.analysis_completed` event. The call's timeline event learns the summary and transcript.
   */
  async analysisSettled(ref: CallRef, outcome: { analysis: CallAnalysis } | { error: string }): Promise<void> {
    await this.underLock(ref, async (record) => {
      if (record.analysisStatus !== 'Pending') return { changes: {}, value: undefined }; // settled before (a repeated job)
      const changes: Partial<OutboundIvrRequestEntity> =
        'analysis' in outcome
          ? { ...outcome.analysis, analysisStatus: 'Completed', analysisError: null, analysedAt: new Date() }
          : { analysisStatus: 'Failed', analysisError: outcome.error.slice(0, 1000), analysedAt: new Date() };
      Object.assign(record, changes);
      const report = this.callReportOf(record);
      await this.reports.recordAnalysis(report);
      if (record.callWebhookWaiting) {
        await this.reports.sendCallWebhook(report);
        changes.callWebhookWaiting = false;
      } else {
        await this.webhooks.emit(record.workspaceId, WebhookEventType.CallAnalysisCompleted, analysisEvent(record), {
          channelId: record.channelId,
        });
      }
      return { changes, value: undefined };
    });
  }

  /**
   * A finished call's stored recording is analysed when the workspace has a transcription provider
   * (API.md §16): marks it Pending in `changes` and queues the job with them. True when it does.
   */
  private async startAnalysis(record: OutboundIvrRequestEntity, changes: Partial<OutboundIvrRequestEntity>): Promise<boolean> {
    if (!record.recordingMediaId || record.analysisStatus !== null) return false;
    if (!(await this.intelligence.planFor(record.workspaceId)).transcription) return false;
    changes.analysisStatus = record.analysisStatus = 'Pending';
    await this.outbox.enqueue([{ jobName: JobName.AnalyseCall, workspaceId: record.workspaceId, payload: { requestId: record.id } }]);
    return true;
  }

  /** The user gave the call permission it waited for (API.md §15): it is placed now (or when it is due). */
  async permissionGranted(ref: CallRef): Promise<void> {
    await this.underLock(ref, async (record) => {
      if (!record.awaitingPermission || isFinished(record.status)) return { changes: {}, value: undefined };
      const runAt = record.scheduledFor && record.scheduledFor > new Date() ? record.scheduledFor : undefined;
      await this.outbox.enqueue([{ jobName: JobName.PlaceIvrCall, workspaceId: ref.workspaceId, runAt, payload: { requestId: ref.id } }]);
      return { changes: { awaitingPermission: false, permissionDeadline: null }, value: undefined };
    });
  }

  /** Ends a call that still waits for the user's permission (declined, or its deadline passed); one granted meanwhile goes on. */
  async endPermissionWait(ref: CallRef, progress: CallProgress): Promise<void> {
    await this.withCall(ref, (call) => Promise.resolve(call.record.awaitingPermission && call.progress(progress)));
  }

  /** The wait is over: a Call Webhook still waiting for its recording goes without it. */
  async sendWaitingCallWebhook(ref: CallRef): Promise<void> {
    await this.underLock(ref, async (record) => {
      if (!record.callWebhookWaiting) return { changes: {}, value: undefined };
      await this.reports.sendCallWebhook(this.callReportOf(record));
      return { changes: { callWebhookWaiting: false }, value: undefined };
    });
  }

  /** Reads the record under its row lock, lets `work` decide what changes, and writes that, all in one transaction. */
  private async underLock<T>(
    ref: CallRef,
    work: (record: OutboundIvrRequestEntity) => Promise<{ changes: Partial<OutboundIvrRequestEntity>; value: T }>,
  ): Promise<T | undefined> {
    return this.inTurn(() =>
      inTransaction(async () => {
        const record = await this.requests.findById(ref.workspaceId, ref.id, { lock: true });
        if (!record) return undefined;
        const { changes, value } = await work(record);
        if (Object.keys(changes).length > 0) await this.requests.update(ref.workspaceId, { id: ref.id }, changes);
        return value;
      }),
    );
  }

  /**
   * The outcome webhook to the request's webhookUrl, and the call's timeline event and Call
   * Webhook (unless it waits for the recording: then a job sends it when the wait is over).
   */
  private async report(record: OutboundIvrRequestEntity, withCallWebhook: boolean): Promise<void> {
    // A WhatsApp user's call has no request, so no outcome webhook: its Call Webhook (type 1) reports it.
    const outcome = record.webhookUrl
      ? [
          {
            workspaceId: record.workspaceId,
            kind: WebhookKind.OutboundIvrCompleted,
            targetUrl: record.webhookUrl,
            payload: toWebhookPayload(record) as unknown as Record<string, unknown>,
          },
        ]
      : [];
    await this.reports.record(this.callReportOf(record), outcome, withCallWebhook);
    if (!withCallWebhook) {
      const runAt = new Date(Date.now() + this.callIntelligenceWaitMs);
      await this.outbox.enqueue([
        { jobName: JobName.SendWaitingCallWebhook, workspaceId: record.workspaceId, runAt, payload: { requestId: record.id } },
      ]);
    }
  }

  /** The finished call as the timeline and the Call Webhook describe it. */
  private callReportOf(record: OutboundIvrRequestEntity): CallReport {
    const digit = record.pressedDigit ? `, digit ${record.pressedDigit}` : '';
    const machine = record.result === OutboundIvrResult.AnsweringMachine ? ` (${record.answeredBy})` : '';
    const voicemail =
      machine && record.machineDetection === 'LeaveMessage' && record.answeredBy !== 'fax' && record.script?.voicemailUrl
        ? `, voicemail ${record.script.voicemailUrl}`
        : '';
    return {
      workspaceId: record.workspaceId,
      channelId: record.channelId,
      callId: record.callId ?? record.id,
      type: record.direction,
      status: CALL_WEBHOOK_STATUS[record.status] ?? CallWebhookStatus.Failed,
      contactNumber: record.destinationNumber,
      pickupTime: record.answeredAt,
      hangupTime: record.completedAt ?? new Date(),
      durationSeconds: record.callDurationSeconds ?? 0,
      creationTime: record.creationTime,
      summary: `${record.direction === CallType.Inbound ? 'Inbound WhatsApp IVR call' : 'Outbound IVR call'}: ${OutboundIvrStatus[record.status]}, ${OutboundIvrResult[record.result]}${machine}${digit}${voicemail}`,
      answeredBy: record.answeredBy,
      sourceId: record.id,
      details: {
        outboundIvrRequestId: record.id,
        status: record.status,
        result: record.result,
        pressedDigit: record.pressedDigit,
        ...(record.answeredBy && { answeredBy: record.answeredBy }),
      },
      recordingUrl: record.recordingUrl,
      overWhatsApp: record.direction === CallType.Inbound,
      analysis: analysisText(record),
    };
  }
}

/** The analysis as the Call Webhook's text fields; null until it completed. */
function analysisText(record: OutboundIvrRequestEntity): CallAnalysisText | null {
  if (record.analysisStatus !== 'Completed') return null;
  return {
    transcription: record.transcript ? transcriptText(record.transcript) : null,
    summary: record.summary,
    sentiment: record.sentiment,
    evaluationCriteriaResult: record.evaluationCriteriaResult ? JSON.stringify(record.evaluationCriteriaResult) : null,
  };
}

/** `call.analysis_completed`'s data: the call, and its analysis or why there is none. */
function analysisEvent(record: OutboundIvrRequestEntity) {
  return {
    outboundIvrRequestId: record.id,
    callId: record.callId,
    channelId: record.channelId,
    status: record.analysisStatus as 'Completed' | 'Failed',
    analysisError: record.analysisError,
    transcript: record.transcript,
    summary: record.summary,
    sentiment: record.sentiment,
    evaluationCriteriaResult: record.evaluationCriteriaResult,
  };
}

/** A recorded call that was answered and has no recording yet (nor will never have one): its Call Webhook waits. */
function waitsForRecording(record: OutboundIvrRequestEntity): boolean {
  return record.record && record.answeredAt !== null && !record.recordingMediaId && !record.recordingError;
}
