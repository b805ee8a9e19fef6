import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { newId } from '../common/id.js';
import { Outbox, type OutboxRow } from '../queue/outbox.service.js';
import { JobName } from '../queue/queue-names.js';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import { WebhookDeliveryStatus, type WebhookKind } from './webhook-kind.js';
import { InvalidWebhookTarget } from './webhooks.errors.js';

export interface WebhookEvent {
  workspaceId: string;
  kind: WebhookKind;
  targetUrl: string;
  payload: Record<string, unknown>;
}

export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * Records webhook events in the caller's transaction, together with the outbox job that delivers
 * them: the event exists exactly when the change that caused it does. In an `Outbox.transaction`,
 * hand the rows it returns to `tx.pushAfterCommit`.
 */
@Injectable()
export class WebhookPublisher {
  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly outbox: Outbox,
  ) {}

  /** Returns the outbox rows written, to push once the transaction committed (`tx.pushAfterCommit`). */
  async publish(manager: EntityManager, events: WebhookEvent[]): Promise<OutboxRow[]> {
    if (events.length === 0) return [];
    for (const event of events) if (!isHttpUrl(event.targetUrl)) throw InvalidWebhookTarget(event.targetUrl);
    const rows = events.map((event) => ({
      id: newId(),
      workspaceId: event.workspaceId,
      kind: event.kind,
      targetUrl: event.targetUrl,
      payload: event.payload,
      status: WebhookDeliveryStatus.Pending,
      nextAttemptAt: new Date(),
    }));
    await this.deliveries.withManager(manager).insertNew(rows);
    return this.outbox.write(
      manager,
      rows.map((row) => ({ jobName: JobName.DeliverWebhook, workspaceId: row.workspaceId, payload: { deliveryId: row.id, attempt: 1 } })),
    );
  }
}
