import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { SharedInvalidation } from '../common/cache/shared-invalidation.js';
import { WebhookEndpointsRepository, type EndpointFilter } from './webhook-endpoints.repository.js';

/** How long a workspace's endpoint filters are reused if the message that drops them is lost. */
const PRESENCE_TTL_MS = 5000;

/**
 * Whether any enabled endpoint of a workspace takes an event, from memory: producers of the original
 * kinds (WhatsApp messages, calls) publish for endpoints even when the channel has no URL of its own,
 * and this spares the workspaces without endpoints a statement per message. Every change to an
 * endpoint drops the workspace's entry in every process ({@link changed}).
 */
@Injectable()
export class EndpointPresence {
  private readonly known = new LRUCache<string, EndpointFilter[]>({ max: 10_000, ttl: PRESENCE_TTL_MS });

  constructor(
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly invalidation: SharedInvalidation,
  ) {
    invalidation.on('webhook-endpoints', (workspaceId) => this.known.delete(workspaceId));
  }

  /** An endpoint of the workspace was created, changed, disabled or deleted. */
  changed(workspaceId: string): void {
    this.invalidation.invalidate('webhook-endpoints', workspaceId);
  }

  /** In a transaction, a miss is read through it, not through a second pooled connection. */
  async takes(workspaceId: string, kind: string, channelId: string | null): Promise<boolean> {
    let filters = this.known.get(workspaceId);
    if (!filters) {
      filters = await this.endpoints.enabledFilters(workspaceId);
      this.known.set(workspaceId, filters);
    }
    return filters.some(
      (f) =>
        (f.eventTypes === null || f.eventTypes.includes(kind)) &&
        (f.channelIds === null || channelId === null || f.channelIds.includes(channelId)),
    );
  }
}
