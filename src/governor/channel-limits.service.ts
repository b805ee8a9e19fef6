import { Injectable } from '@nestjs/common';
import type { Channel } from '../channels/channel.entity.js';
import { ChannelsService } from '../channels/channels.service.js';
import { SharedInvalidation } from '../common/cache/shared-invalidation.js';
import { defaultLimits, type Limits } from './channel-limits.entity.js';
import { ChannelLimitsRepository } from './channel-limits.repository.js';

/** The channel as the governor needs it: who it is, and its WhatsApp provider (whose default messaging limit differs). */
export type GovernedChannel = Pick<Channel, 'id' | 'workspaceId' | 'whatsAppProvider'>;

/** How long a process may use a channel's tiers without reading them again (a PUT drops them everywhere at once). */
const CACHE_MS = 10_000;
const TOPIC = 'channel-limits';

/**
 * A channel's tiers (API.md §13), read per message by the governor: cached in memory, and dropped
 * in every process the moment an operator changes them.
 */
@Injectable()
export class ChannelLimitsService {
  private readonly cache = new Map<string, { limits: Limits; until: number }>();

  constructor(
    private readonly repository: ChannelLimitsRepository,
    private readonly channels: ChannelsService,
    private readonly invalidation: SharedInvalidation,
  ) {
    invalidation.on(TOPIC, (channelId) => this.cache.delete(channelId));
  }

  async of(channel: GovernedChannel): Promise<Limits> {
    const hit = this.cache.get(channel.id);
    if (hit && hit.until > Date.now()) return hit.limits;
    const row = await this.repository.ofChannel(channel.workspaceId, channel.id);
    const limits = row ? pickLimits(row) : defaultLimits(channel.whatsAppProvider);
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(channel.id, { limits, until: Date.now() + CACHE_MS });
    return limits;
  }

  /** Operators' PUT: the values given replace the channel's, the others keep theirs (or their defaults). Unknown channel: 404. */
  async put(channelId: string, changes: Partial<Limits>): Promise<{ channel: Channel; limits: Limits }> {
    const channel = await this.channels.findUnscopedForOperator(channelId);
    const current = await this.repository.ofChannel(channel.workspaceId, channel.id);
    const limits = { ...(current ? pickLimits(current) : defaultLimits(channel.whatsAppProvider)), ...definedOnly(changes) };
    await this.repository.put(channel.workspaceId, channel.id, limits);
    this.invalidation.invalidate(TOPIC, channel.id);
    return { channel, limits };
  }
}

function pickLimits(row: Limits): Limits {
  const { throughputPerSecond, messagingLimit, callsPerSecond, concurrentCalls } = row;
  return { throughputPerSecond, messagingLimit, callsPerSecond, concurrentCalls };
}

/** The fields present in a partial body (`messagingLimit: null` is present: unlimited). */
function definedOnly(changes: Partial<Limits>): Partial<Limits> {
  return Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
}
