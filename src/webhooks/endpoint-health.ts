import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../config/app-config.js';
import { Outbox } from '../queue/outbox.service.js';
import { JobName } from '../queue/queue-names.js';
import type { ClaimedDelivery } from './webhook-deliveries.repository.js';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository.js';
import { WebhookDeliveryStatus, WebhookEventType } from './webhook-kind.js';
import { WebhookPublisher } from './webhook-publisher.js';
import { EndpointPresence } from './endpoint-presence.js';
import { inTransaction } from '../database/transactions.js';

/**
 * What an endpoint's attempt leads to besides its own delivery: auto-disable after
 * `WEBHOOK_DISABLE_AFTER` of failure (with the operational event to the workspace's other
 * endpoints), and, for an ordered endpoint, the next event of the key once this one ended.
 */
@Injectable()
export class EndpointHealth {
  private readonly logger = new Logger(EndpointHealth.name);

  constructor(
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly publisher: WebhookPublisher,
    private readonly outbox: Outbox,
    private readonly config: AppConfig,
    private readonly presence: EndpointPresence,
  ) {}

  async afterAttempt(claimed: ClaimedDelivery, succeeded: boolean, status: WebhookDeliveryStatus): Promise<void> {
    const endpoint = claimed.endpoint;
    if (!endpoint || endpoint.disabled) return;
    const workspaceId = claimed.workspace_id;
    if (succeeded) {
      if (endpoint.failing_since) await this.endpoints.clearFailing(workspaceId, endpoint.id);
    } else {
      const failing = await this.endpoints.markFailing(workspaceId, endpoint.id);
      if (failing && !failing.disabled && Date.now() - failing.failingSince.getTime() >= this.config.webhooks.disableAfterMs) {
        await this.disable(workspaceId, endpoint.id, failing.failingSince);
        return;
      }
    }
    if (status !== WebhookDeliveryStatus.Pending && endpoint.ordered && claimed.ordering_key) {
      await this.releaseNextOfKey(workspaceId, endpoint.id, claimed.ordering_key);
    }
  }

  /** Disables the endpoint, stops its pending deliveries and tells the workspace's other endpoints, in one transaction. */
  private async disable(workspaceId: string, endpointId: string, failingSince: Date): Promise<void> {
    const reason = `No successful attempt since ${failingSince.toISOString()} while attempts failed (WEBHOOK_DISABLE_AFTER).`;
    await inTransaction(async () => {
      const endpoint = await this.endpoints.disable(workspaceId, endpointId, reason);
      if (!endpoint) return; // another worker disabled it first
      await this.deliveries.failPendingOfEndpoint(workspaceId, endpointId, 'Stopped: the endpoint was disabled');
      await this.publisher.emit(workspaceId, WebhookEventType.WebhookEndpointDisabled, {
        endpointId,
        url: endpoint.url,
        disabledReason: reason,
        disabledAt: (endpoint.disabledAt ?? new Date()).toISOString(),
        failingSince: failingSince.toISOString(),
      });
    });
    this.presence.changed(workspaceId);
    this.logger.warn(`Webhook endpoint ${endpointId} (workspace ${workspaceId}) disabled: ${reason}`);
  }

  /** Queues the key's next pending delivery, which waited for the one that just ended. */
  private async releaseNextOfKey(workspaceId: string, endpointId: string, orderingKey: string): Promise<void> {
    const next = await this.deliveries.findNextOfKey(workspaceId, endpointId, orderingKey);
    if (!next) return;
    await this.outbox.enqueue([
      {
        jobName: JobName.DeliverWebhook,
        workspaceId,
        runAt: next.runAt,
        payload: { deliveryId: next.id, attempt: next.attempt, endpointId },
      },
    ]);
  }
}
