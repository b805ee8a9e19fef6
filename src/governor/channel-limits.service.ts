import { Injectable } from '@nestjs/common';
import type { Channel } from '../channels/channel.entity.js';
import { ChannelsService } from '../channels/channels.service.js';
import { SharedInvalidation } from '../common/cache/shared-invalidation.js';
import { defaultLimits, type Limits, type TiersSetBy } from './channel-limits.entity.js';
import { ChannelLimitsRepository } from './channel-limits.repository.js';
import { inTransaction, Transactional } from '../database/transactions.js';

/**
 * The channel as the governor needs it: who it is, its WhatsApp provider (whose default messaging
 * limit differs) and its business portfolio (whose numbers share one messaging-limit count).
 */
export type GovernedChannel = Pick<Channel, 'id' | 'workspaceId' | 'whatsAppProvider'> & { businessId?: string | null };

/** A channel's tiers with who set them last and the quality Meta last reported. */
export interface TiersState {
  limits: Limits;
  /** Null while the channel has its defaults (nobody set anything). */
  setBy: TiersSetBy | null;
  qualityRating: string | null;
}

/** What one of Meta's webhooks sets on a channel: a field left out keeps its value. */
export interface MetaTierChange {
  throughputPerSecond?: number;
  /** Null: unlimited. */
  messagingLimit?: number | null;
  qualityRating?: string;
}

/** How long a process may use a channel's tiers without reading them again (a change drops them everywhere at once). */
const CACHE_MS = 10_000;
const TOPIC = 'channel-limits';

/**
 * A channel's tiers (API.md §13, §14), read per message by the governor: cached in memory, and
 * dropped in every process the moment an operator or Meta changes them. Operator and Meta write
 * the same row, last writer wins: an operator's PUT holds until Meta's next webhook about the
 * number sets the tiers it names (the tiers it does not name keep the operator's values).
 */
@Injectable()
export class ChannelLimitsService {
  private readonly cache = new Map<string, { state: TiersState; until: number }>();

  constructor(
    private readonly repository: ChannelLimitsRepository,
    private readonly channels: ChannelsService,
    private readonly invalidation: SharedInvalidation,
  ) {
    invalidation.on(TOPIC, (channelId) => this.cache.delete(channelId));
  }

  async of(channel: GovernedChannel): Promise<Limits> {
    return (await this.stateOf(channel)).limits;
  }

  async stateOf(channel: GovernedChannel): Promise<TiersState> {
    const hit = this.cache.get(channel.id);
    if (hit && hit.until > Date.now()) return hit.state;
    const state = await this.read(channel);
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(channel.id, { state, until: Date.now() + CACHE_MS });
    return state;
  }

  /** Operators' PUT: the values given replace the channel's, the others keep theirs (or their defaults). Unknown channel: 404. */
  async put(channelId: string, changes: Partial<Limits>): Promise<{ channel: Channel; limits: Limits }> {
    const channel = await this.channels.findUnscopedForOperator(channelId);
    const limits = await inTransaction(async () => {
      await this.repository.lockChannel(channel.workspaceId, channel.id);
      const current = await this.read(channel);
      const merged = { ...current.limits, ...definedOnly(changes) };
      await this.repository.put(channel.workspaceId, channel.id, merged, 'Operator', current.qualityRating);
      return merged;
    });
    this.forget([channel.id]);
    return { channel, limits };
  }

  /**
   * Meta's webhook: the tiers it names replace the channel's, whoever set them (an operator's
   * override ends here). In the caller's transaction, under the channel's lock; the caller calls
   * {@link forget} once it committed.
   */
  @Transactional()
  async applyFromMeta(channel: GovernedChannel, change: MetaTierChange): Promise<TiersState> {
    await this.repository.lockChannel(channel.workspaceId, channel.id);
    const current = await this.read(channel);
    const { qualityRating, ...tiers } = change;
    const state: TiersState = {
      limits: { ...current.limits, ...definedOnly(tiers) },
      setBy: 'Meta',
      qualityRating: qualityRating ?? current.qualityRating,
    };
    await this.repository.put(channel.workspaceId, channel.id, state.limits, 'Meta', state.qualityRating);
    return state;
  }

  /** Every process drops these channels' tiers from memory (after the change committed). */
  forget(channelIds: readonly string[]): void {
    for (const id of channelIds) this.invalidation.invalidate(TOPIC, id);
  }

  private async read(channel: GovernedChannel): Promise<TiersState> {
    const row = await this.repository.ofChannel(channel.workspaceId, channel.id);
    if (!row) return { limits: defaultLimits(channel.whatsAppProvider), setBy: null, qualityRating: null };
    return { limits: pickLimits(row), setBy: row.setBy, qualityRating: row.qualityRating };
  }
}

function pickLimits(row: Limits): Limits {
  const { throughputPerSecond, messagingLimit, callsPerSecond, concurrentCalls } = row;
  return { throughputPerSecond, messagingLimit, callsPerSecond, concurrentCalls };
}

/** The fields present in a partial body (`messagingLimit: null` is present: unlimited). */
function definedOnly<T extends object>(changes: T): Partial<T> {
  return Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) as Partial<T>;
}
