import { Injectable } from '@nestjs/common';
import { newId } from '../common/id.js';
import type { WebhookEventData, WebhookEventEnvelope } from './webhook-events.js';
import { Outbox, type OutboxRow } from '../queue/outbox.service.js';
import { JobName } from '../queue/queue-names.js';
import { type WebhookEventType } from './webhook-kind.js';
import { WebhookDeliveriesRepository, type EventToFanOut } from './webhook-deliveries.repository.js';
import type { WebhookKind } from './webhook-kind.js';
import { EndpointPresence } from './endpoint-presence.js';
import { InvalidWebhookTarget } from './webhooks.errors.js';

/**
 * One of the three original kinds (API.md §11), for a channel's or a request's URL (null when it has
 * none) and the workspace's endpoints that take it.
 */
export interface WebhookEvent {
  workspaceId: string;
  kind: WebhookKind;
  targetUrl: string | null;
  payload: Record<string, unknown>;
}

/** Where a domain event belongs: the channel filter and the key an ordered endpoint serialises on. */
export interface EventRoute {
  channelId?: string | null;
  /** A conversation id, or a contact id for events of no conversation. */
  orderingKey?: string | null;
}

export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** The `{ type, timestamp, workspaceId, data }` body endpoints receive. */
export function envelope<T extends string>(workspaceId: string, type: T, data: unknown): WebhookEventEnvelope & { type: T } {
  return { type, timestamp: new Date().toISOString(), workspaceId, data } as WebhookEventEnvelope & { type: T };
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null;
}

/**
 * Records webhook events in the caller's transaction, together with the outbox jobs that deliver
 * them: the event exists exactly when the change that caused it does. Each event becomes one
 * delivery row per target: the channel's or request's URL it names, and every endpoint of the
 * workspace that takes it (API.md §11.1), in one statement. Their jobs are pushed to Bull once
 * the caller's transaction commits.
 */
@Injectable()
export class WebhookPublisher {
  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly outbox: Outbox,
    private readonly presence: EndpointPresence,
  ) {}

  /**
   * Whether an event of this kind would go anywhere: the URL given, or an endpoint of the workspace
   * (from memory). Lets a producer skip the transaction it would open only to publish.
   */
  async wanted(workspaceId: string, kind: WebhookKind, channelId: string | null, targetUrl: string | null): Promise<boolean> {
    return targetUrl !== null || (await this.presence.takes(workspaceId, kind, channelId));
  }

  /**
   * Writes the events' deliveries; an event without a URL is written only when an endpoint takes
   * it. Returns their jobs' outbox rows (pushed to Bull once the caller's transaction commits).
   */
  async publish(events: WebhookEvent[]): Promise<OutboxRow[]> {
    const toWrite: EventToFanOut[] = [];
    for (const event of events) {
      if (event.targetUrl !== null && !isHttpUrl(event.targetUrl)) throw InvalidWebhookTarget(event.targetUrl);
      const channelId = stringOrNull(event.payload.channelId);
      if (event.targetUrl === null && !(await this.presence.takes(event.workspaceId, event.kind, channelId))) continue;
      toWrite.push({
        workspaceId: event.workspaceId,
        kind: event.kind,
        target: event.targetUrl === null ? undefined : { id: newId(), url: event.targetUrl, payload: event.payload },
        // Endpoints get the same payload as `data` of the envelope.
        envelope: envelope(event.workspaceId, event.kind, event.payload),
        channelId,
        orderingKey: stringOrNull(event.payload.conversationId) ?? stringOrNull(event.payload.contactId),
      });
    }
    return toWrite.length === 0 ? [] : this.write(toWrite);
  }

  /**
   * Writes a domain event (API.md §11.1) for the workspace's endpoints that take it, in the
   * caller's transaction; call it after the change (its row lock orders the events of one key).
   * Its jobs are pushed once that transaction commits.
   */
  async emit<T extends WebhookEventType>(workspaceId: string, type: T, data: WebhookEventData[T], route: EventRoute = {}): Promise<void> {
    if (!(await this.wants(workspaceId, type, route.channelId ?? null))) return;
    await this.write([
      {
        workspaceId,
        kind: type,
        envelope: envelope(workspaceId, type, data),
        channelId: route.channelId ?? null,
        orderingKey: route.orderingKey ?? null,
      },
    ]);
  }

  /**
   * Whether an enabled endpoint of the workspace takes the event (from memory, {@link EndpointPresence}):
   * a producer asks before building an event's data, so that a workspace without endpoints pays nothing for it.
   */
  wants(workspaceId: string, type: WebhookEventType, channelId: string | null = null): Promise<boolean> {
    return this.presence.takes(workspaceId, type, channelId);
  }

  /** A sample or an operational event for one endpoint only, whatever its filters (the test event). */
  async writeForEndpoint(workspaceId: string, endpointId: string, type: string, data: unknown): Promise<OutboxRow[]> {
    return this.write([{ workspaceId, kind: type, envelope: envelope(workspaceId, type, data), onlyEndpointId: endpointId }]);
  }

  /** Writes the deliveries and their jobs; the jobs are pushed once the caller's transaction commits. */
  private async write(events: EventToFanOut[]): Promise<OutboxRow[]> {
    const written = await this.deliveries.insertFanningOut(events);
    return this.outbox.enqueue(
      written.map((row) => ({
        jobName: JobName.DeliverWebhook,
        workspaceId: row.workspaceId,
        payload: row.endpointId ? { deliveryId: row.id, attempt: 1, endpointId: row.endpointId } : { deliveryId: row.id, attempt: 1 },
      })),
    );
  }
}
