import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { Outbox } from '../queue/outbox.service.js';
import { toWebhookPayload } from './dto/outbound-ivr-request.dto.js';
import { CallReportsService } from './call-reports.service.js';
import { applyProgress, type CallProgress } from './call-progress.js';
import { converse, type DialogInput } from './dialog/dialog-engine.js';
import type { Instructions } from './dialog/dialog-state.js';
import { CallType, CallWebhookStatus, isFinished, OutboundIvrResult, OutboundIvrStatus } from './ivr-enums.js';
import { OutboundIvrRequestEntity } from './outbound-ivr-request.entity.js';
import { WebhookKind } from '../webhooks/webhook-kind.js';

/** Names one call record; provider callbacks resolve it before they reach the tracker. */
export interface CallRef {
  id: string;
  workspaceId: string;
}

const HANG_UP: Instructions = { play: [], gather: null, turn: -1 };

const CALL_WEBHOOK_STATUS: Partial<Record<OutboundIvrStatus, CallWebhookStatus>> = {
  [OutboundIvrStatus.Completed]: CallWebhookStatus.Completed,
  [OutboundIvrStatus.NoAnswer]: CallWebhookStatus.NoAnswer,
  [OutboundIvrStatus.Busy]: CallWebhookStatus.RejectedByCallee,
  [OutboundIvrStatus.Failed]: CallWebhookStatus.Failed,
  [OutboundIvrStatus.Cancelled]: CallWebhookStatus.Cancelled,
};

/**
 * The one place a call record changes once placed. Every report runs in a transaction holding
 * the record's row lock, so reports racing each other apply one at a time; when a report
 * finishes the call, its outcome webhooks and timeline event are written in the same transaction.
 */
@Injectable()
export class CallTracker {
  constructor(
    private readonly dataSource: DataSource,
    private readonly reports: CallReportsService,
    private readonly outbox: Outbox,
  ) {}

  /** Applies a provider's report. Returns false once the call is finished (callers stop playing it). */
  async progress(ref: CallRef, progress: CallProgress): Promise<boolean> {
    const live = await this.locked(ref, async (manager, record) => {
      const changes = applyProgress(record, progress);
      if (changes) await this.save(manager, record, changes);
      return !isFinished(record.status);
    });
    this.outbox.afterCommit();
    return live ?? false;
  }

  /**
   * One exchange with the callee: the call was answered, a digit was pressed, or nothing was.
   * `turn` is the exchange the provider is answering; a stale one (a repeated callback) gets the
   * current instructions again without moving the dialog.
   */
  async converse(ref: CallRef, input: DialogInput, turn?: number): Promise<Instructions> {
    const instructions = await this.locked(ref, async (manager, record) => {
      if (isFinished(record.status) || !record.script) return HANG_UP;
      const repeated = input.kind === 'answered' ? record.dialog !== null : turn !== undefined && turn !== record.dialog?.turn;
      if (repeated && record.dialog) return record.dialog.instructions;
      const now = new Date();
      const step = converse(record.script, record.dialog, input, now);
      const changes: Partial<OutboundIvrRequestEntity> = { dialog: step.state };
      if (input.kind === 'answered') Object.assign(changes, applyProgress(record, { kind: 'answered', at: now }));
      if (step.answer) Object.assign(changes, { answers: [...record.answers, step.answer], pressedDigit: step.answer.digit });
      await this.save(manager, record, changes);
      return step.state.instructions;
    });
    return instructions ?? HANG_UP;
  }

  async isLive(ref: CallRef): Promise<boolean> {
    const record = await this.dataSource
      .getRepository(OutboundIvrRequestEntity)
      .findOne({ where: { id: ref.id, workspaceId: ref.workspaceId }, select: { id: true, status: true } });
    return record !== null && !isFinished(record.status);
  }

  private async save(manager: EntityManager, record: OutboundIvrRequestEntity, changes: Partial<OutboundIvrRequestEntity>): Promise<void> {
    const wasFinished = isFinished(record.status);
    Object.assign(record, changes);
    await manager.update(OutboundIvrRequestEntity, { id: record.id, workspaceId: record.workspaceId }, changes as never);
    if (!wasFinished && isFinished(record.status)) await this.report(manager, record);
  }

  /** The outcome webhook to the request's webhookUrl, and the call's timeline event and Call Webhook. */
  private report(manager: EntityManager, record: OutboundIvrRequestEntity): Promise<void> {
    const outcome = {
      workspaceId: record.workspaceId,
      kind: WebhookKind.OutboundIvrCompleted,
      targetUrl: record.webhookUrl,
      payload: toWebhookPayload(record) as unknown as Record<string, unknown>,
    };
    const digit = record.pressedDigit ? `, digit ${record.pressedDigit}` : '';
    return this.reports.record(
      manager,
      {
        workspaceId: record.workspaceId,
        channelId: record.channelId,
        callId: record.callId ?? record.id,
        type: CallType.Outbound,
        status: CALL_WEBHOOK_STATUS[record.status] ?? CallWebhookStatus.Failed,
        contactNumber: record.destinationNumber,
        pickupTime: record.answeredAt,
        hangupTime: record.completedAt ?? new Date(),
        durationSeconds: record.callDurationSeconds ?? 0,
        creationTime: record.creationTime,
        summary: `Outbound IVR call: ${OutboundIvrStatus[record.status]}, ${OutboundIvrResult[record.result]}${digit}`,
        sourceId: record.id,
        details: { outboundIvrRequestId: record.id, status: record.status, result: record.result, pressedDigit: record.pressedDigit },
      },
      [outcome],
    );
  }

  private locked<T>(ref: CallRef, work: (manager: EntityManager, record: OutboundIvrRequestEntity) => Promise<T>): Promise<T | undefined> {
    return this.dataSource.transaction(async (manager) => {
      const record = await manager.findOne(OutboundIvrRequestEntity, {
        where: { id: ref.id, workspaceId: ref.workspaceId },
        lock: { mode: 'pessimistic_write' },
      });
      return record ? work(manager, record) : undefined;
    });
  }
}
