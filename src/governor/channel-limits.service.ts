import { Injectable } from '@nestjs/common';
import type { Channel } from '../channels/channel.entity.js';
import { ChannelsService } from '../channels/channels.service.js';
import { SharedInvalidation } from '../common/cache/shared-invalidation.js';
import { ACCOUNT_DISABLED } from './account-restriction.js';
import { defaultLimits, type Limits, type Restriction, type TiersSetBy } from './channel-limits.entity.js';
import { ChannelLimitsRepository } from './channel-limits.repository.js';
import { BusinessLimitsRepository } from './business-limits.repository.js';
import type { BusinessLimits } from './business-limits.entity.js';
import { inTransaction, Transactional } from '../database/transactions.js';

/**
 * The channel as the governor needs it: who it is, its WhatsApp provider (whose default messaging
 * limit differs) and its business portfolio (whose numbers share one messaging limit and its count).
 */
export type GovernedChannel = Pick<Channel, 'id' | 'workspaceId' | 'whatsAppProvider'> & { businessId?: string | null };

/** A channel's tiers with who set them last, the quality Meta last reported and Meta's restriction, if any. */
export interface TiersState {
  /** The tiers in force now: the business's messaging limit for a channel of one, 0 while a restriction is in force. */
  limits: Limits;
  /** Null while the channel has its defaults (nobody set anything). */
  setBy: TiersSetBy | null;
  qualityRating: string | null;
  /** Meta's restriction of business-initiated messaging, while in force. */
  restriction: Restriction | null;
}

/** What one of Meta's webhooks sets on a channel: a field left out keeps its value. */
export interface MetaTierChange {
  throughputPerSecond?: number;
  /** Null: unlimited. The business's, for a channel of one. */
  messagingLimit?: number | null;
  qualityRating?: string;
  /** A restriction imposed, or (`lift`) the restriction of that reason lifted. */
  restriction?: { impose: Restriction } | { lift: string };
}

/** A channel's own row as read: its tiers (its own messaging limit), who set them, quality, restriction. */
interface OwnState {
  limits: Limits;
  setBy: TiersSetBy | null;
  qualityRating: string | null;
  restriction: Restriction | null;
}

/** A business portfolio's messaging limit, as the channels of it use it. */
type BusinessLimit = Pick<BusinessLimits, 'messagingLimit'>;

type Cache<T> = Map<string, { value: T; until: number }>;

/** `read`'s value, kept in `cache` for {@link CACHE_MS}. */
async function cached<T>(cache: Cache<T>, key: string, read: () => Promise<T>): Promise<T> {
  const hit = cache.get(key);
  if (hit && hit.until > Date.now()) return hit.value;
  const value = await read();
  if (cache.size > 10_000) cache.clear();
  cache.set(key, { value, until: Date.now() + CACHE_MS });
  return value;
}

/** How long a process may use tiers without reading them again (a change drops them everywhere at once). */
const CACHE_MS = 10_000;
const TOPIC = 'channel-limits';
const BUSINESS_TOPIC = 'business-limits';
const businessKey = (workspaceId: string, businessId: string) => `${workspaceId}:${businessId}`;

/**
 * A channel's tiers (API.md §13, §14), read per message by the governor: cached in memory, and
 * dropped in every process the moment an operator or Meta changes them. Operator and Meta write
 * the same row, last writer wins: an operator's PUT holds until Meta's next webhook about the
 * number sets the tiers it names (the tiers it does not name keep the operator's values).
 *
 * The messaging limit of a channel with a `businessId` is its business portfolio's, one number for
 * all the portfolio's channels (Meta counts it per portfolio): a PUT or Meta's webhook on any of them
 * sets it for all, and a channel joining a portfolio takes the portfolio's (the first one to join
 * brings its own). Meta's restriction of business-initiated messaging makes the limit 0 while it is
 * in force, without losing the limit underneath: lifting it, or its end passing, brings it back.
 */
@Injectable()
export class ChannelLimitsService {
  private readonly cache: Cache<OwnState> = new Map();
  private readonly businessCache: Cache<BusinessLimit | null> = new Map();

  constructor(
    private readonly repository: ChannelLimitsRepository,
    private readonly businesses: BusinessLimitsRepository,
    private readonly channels: ChannelsService,
    private readonly invalidation: SharedInvalidation,
  ) {
    invalidation.on(TOPIC, (channelId) => this.cache.delete(channelId));
    invalidation.on(BUSINESS_TOPIC, (key) => this.businessCache.delete(key));
    channels.onBusinessJoined((channel) => this.joinBusiness(channel));
  }

  async of(channel: GovernedChannel): Promise<Limits> {
    return (await this.stateOf(channel)).limits;
  }

  /** The channel's tiers in force now (see {@link TiersState}). */
  async stateOf(channel: GovernedChannel): Promise<TiersState> {
    const own = await cached(this.cache, channel.id, () => this.readOwn(channel));
    const { businessId } = channel;
    const business = businessId
      ? await cached(this.businessCache, businessKey(channel.workspaceId, businessId), () =>
          this.businesses.ofBusiness(channel.workspaceId, businessId),
        )
      : null;
    return inForce(own, business);
  }

  /**
   * Operators' PUT: the values given replace the channel's, the others keep theirs (or their
   * defaults); a messaging limit given is the business's when the channel has one. Unknown channel: 404.
   */
  async put(channelId: string, changes: Partial<Limits>): Promise<{ channel: Channel; limits: Limits }> {
    const channel = await this.channels.findUnscopedForOperator(channelId);
    await inTransaction(async () => {
      await this.repository.lockChannel(channel.workspaceId, channel.id);
      const current = await this.readOwn(channel);
      await this.repository.put(
        channel.workspaceId,
        channel.id,
        { ...current.limits, ...definedOnly(changes) },
        'Operator',
        current.qualityRating,
        current.restriction,
      );
      if (changes.messagingLimit !== undefined && channel.businessId) {
        await this.businesses.put(channel.workspaceId, channel.businessId, changes.messagingLimit, 'Operator');
      }
    });
    this.forget([channel]);
    return { channel, limits: (await this.stateOf(channel)).limits };
  }

  /**
   * Meta's webhook: the tiers it names replace the channel's, whoever set them (an operator's
   * override ends here); a messaging limit is the business's too. In the caller's transaction,
   * under the channel's lock; the caller calls {@link forget} once it committed.
   */
  @Transactional()
  async applyFromMeta(channel: GovernedChannel, change: MetaTierChange): Promise<TiersState> {
    await this.repository.lockChannel(channel.workspaceId, channel.id);
    const current = await this.readOwn(channel);
    const { qualityRating, restriction, ...tiers } = change;
    const own: OwnState = {
      limits: { ...current.limits, ...definedOnly(tiers) },
      setBy: 'Meta',
      qualityRating: qualityRating ?? current.qualityRating,
      restriction: restrictionAfter(current.restriction, restriction),
    };
    await this.repository.put(channel.workspaceId, channel.id, own.limits, 'Meta', own.qualityRating, own.restriction);
    let business: BusinessLimit | null = null;
    if (channel.businessId) {
      if (tiers.messagingLimit !== undefined)
        await this.businesses.put(channel.workspaceId, channel.businessId, tiers.messagingLimit, 'Meta');
      business = await this.businesses.ofBusiness(channel.workspaceId, channel.businessId);
    }
    return inForce(own, business);
  }

  /** Every process drops these channels' tiers, and their businesses' limits, from memory (after the change committed). */
  forget(channels: readonly GovernedChannel[]): void {
    for (const channel of channels) {
      this.invalidation.invalidate(TOPIC, channel.id);
      if (channel.businessId) this.invalidation.invalidate(BUSINESS_TOPIC, businessKey(channel.workspaceId, channel.businessId));
    }
  }

  /**
   * A channel joined a business portfolio: a portfolio without a limit yet takes the channel's own,
   * in the channel save's transaction; every process forgets the old tiers once it committed.
   */
  private async joinBusiness(channel: GovernedChannel): Promise<(() => void) | void> {
    if (!channel.businessId) return;
    const own = await this.readOwn(channel);
    await this.businesses.adopt(channel.workspaceId, channel.businessId, own.limits.messagingLimit, own.setBy ?? 'Operator');
    return () => this.forget([channel]);
  }

  private async readOwn(channel: GovernedChannel): Promise<OwnState> {
    const row = await this.repository.ofChannel(channel.workspaceId, channel.id);
    if (!row) return { limits: defaultLimits(channel.whatsAppProvider), setBy: null, qualityRating: null, restriction: null };
    const restriction = row.restriction ? { reason: row.restriction, endsAt: row.restrictionEndsAt } : null;
    return { limits: pickLimits(row), setBy: row.setBy, qualityRating: row.qualityRating, restriction };
  }
}

/** The tiers in force: the business's messaging limit over the channel's own, and 0 while a restriction is in force. */
function inForce(own: OwnState, business: BusinessLimit | null): TiersState {
  const restriction =
    own.restriction && (!own.restriction.endsAt || own.restriction.endsAt.getTime() > Date.now()) ? own.restriction : null;
  const messagingLimit = restriction ? 0 : business ? business.messagingLimit : own.limits.messagingLimit;
  return { limits: { ...own.limits, messagingLimit }, setBy: own.setBy, qualityRating: own.qualityRating, restriction };
}

/**
 * The restriction after Meta's word: imposed, lifted (only a restriction of the reason lifted), or
 * as it was. A ban (the account disabled) is not replaced by a lesser restriction, so that lifting
 * that one later does not end the ban; only Meta's reinstatement does.
 */
function restrictionAfter(current: Restriction | null, change: MetaTierChange['restriction']): Restriction | null {
  if (!change) return current;
  if ('impose' in change)
    return current?.reason === ACCOUNT_DISABLED && change.impose.reason !== ACCOUNT_DISABLED ? current : change.impose;
  return current?.reason === change.lift ? null : current;
}

function pickLimits(row: Limits): Limits {
  const { throughputPerSecond, messagingLimit, callsPerSecond, concurrentCalls } = row;
  return { throughputPerSecond, messagingLimit, callsPerSecond, concurrentCalls };
}

/** The fields present in a partial body (`messagingLimit: null` is present: unlimited). */
function definedOnly<T extends object>(changes: T): Partial<T> {
  return Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) as Partial<T>;
}
