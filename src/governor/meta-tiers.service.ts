import { Injectable, Logger } from '@nestjs/common';
import type { Channel } from '../channels/channel.entity.js';
import { ChannelsService } from '../channels/channels.service.js';
import { inTransaction } from '../database/transactions.js';
import { WebhookPublisher } from '../webhooks/webhook-publisher.js';
import { WebhookEventType } from '../webhooks/webhook-kind.js';
import { ChannelLimitsService, type MetaTierChange, type TiersState } from './channel-limits.service.js';

/**
 * What one of Meta's account webhooks says about a number's tiers, in provider-neutral form (the
 * WhatsApp inbound edge reads it from `phone_number_quality_update` and `account_update`).
 */
export interface MetaTierUpdate {
  field: 'phone_number_quality_update' | 'account_update';
  /** Meta's event name, passed on as it came. */
  event: string;
  /** The WhatsApp Business Account of the notification (`entry[].id`). */
  wabaId: string | null;
  /** The number the change is about (E.164); null when Meta named none (an account_update is about the whole account). */
  phoneNumber: string | null;
  /** The number's new throughput (messages a second); absent: unchanged. */
  throughputPerSecond?: number;
  /** The business portfolio's new messaging limit (null: unlimited); absent: unchanged. */
  messagingLimit?: number | null;
  qualityRating?: string;
  /** `account_update`: business-initiated messaging restricted on the account's numbers, or a restriction of that reason lifted. */
  restriction?: MetaTierChange['restriction'];
}

/**
 * Meta's word on a number's tiers (API.md §14): sets the throughput of the number's channels and
 * the messaging limit of every channel of its business portfolio (the workspace's channels with
 * the same `businessId`: Meta counts that limit per portfolio), drops the cached tiers in every
 * process, and tells the workspace's endpoints (`channel.quality_updated`, one per channel changed).
 * An operator's PUT made before is replaced in what Meta names (see ChannelLimitsService).
 */
@Injectable()
export class MetaTiers {
  private readonly logger = new Logger(MetaTiers.name);

  constructor(
    private readonly channels: ChannelsService,
    private readonly limits: ChannelLimitsService,
    private readonly publisher: WebhookPublisher,
  ) {}

  /** `channelId`: the channel whose webhook URL the notification came to (the workspace's channels are searched from it). */
  async apply(workspaceId: string, channelId: string, update: MetaTierUpdate): Promise<void> {
    const numbers = await this.numbersConcerned(workspaceId, channelId, update);
    if (numbers.length === 0) {
      this.logger.warn(`Meta's ${update.field} (${update.event}) names a number none of workspace ${workspaceId}'s channels has; ignored`);
      return;
    }
    const changes = new Map<string, { channel: Channel; change: MetaTierChange }>();
    const changeOf = (channel: Channel) => {
      const entry = changes.get(channel.id) ?? { channel, change: {} };
      changes.set(channel.id, entry);
      return entry.change;
    };
    for (const channel of numbers) {
      const change = changeOf(channel);
      if (update.throughputPerSecond !== undefined) change.throughputPerSecond = update.throughputPerSecond;
      if (update.qualityRating !== undefined) change.qualityRating = update.qualityRating;
      if (update.restriction !== undefined) change.restriction = update.restriction;
    }
    if (update.messagingLimit !== undefined) {
      const portfolio = [...numbers];
      for (const businessId of new Set(numbers.map((c) => c.businessId).filter((id): id is string => !!id))) {
        portfolio.push(...(await this.channels.whatsAppChannelsOf(workspaceId, { businessId })));
      }
      for (const channel of portfolio) changeOf(channel).messagingLimit = update.messagingLimit;
    }
    // The tiers of every channel concerned and their events: one transaction, then every process forgets the old tiers.
    const applied = await inTransaction(async () => {
      const written: Array<{ channel: Channel; state: TiersState }> = [];
      for (const { channel, change } of changes.values()) {
        if (Object.keys(change).length === 0) continue;
        written.push({ channel, state: await this.limits.applyFromMeta(channel, change) });
      }
      await this.announce(workspaceId, update, written);
      return written;
    });
    this.limits.forget(applied.map(({ channel }) => channel));
  }

  /** `channel.quality_updated` for each channel whose tiers changed, to the endpoints that take it. */
  private async announce(
    workspaceId: string,
    update: MetaTierUpdate,
    applied: Array<{ channel: Channel; state: TiersState }>,
  ): Promise<void> {
    if (!(await this.publisher.wants(workspaceId, WebhookEventType.ChannelQualityUpdated))) return;
    for (const { channel, state } of applied) {
      await this.publisher.emit(
        workspaceId,
        WebhookEventType.ChannelQualityUpdated,
        {
          channelId: channel.id,
          businessId: channel.businessId,
          qualityRating: state.qualityRating,
          throughputPerSecond: state.limits.throughputPerSecond,
          messagingLimit: state.limits.messagingLimit,
          event: update.event,
        },
        { channelId: channel.id },
      );
    }
  }

  /**
   * The channels the notification is about: those with the number it names, else (account_update)
   * those of its WhatsApp Business Account, else the channel it came to.
   */
  private async numbersConcerned(workspaceId: string, channelId: string, update: MetaTierUpdate): Promise<Channel[]> {
    if (update.phoneNumber) return this.channels.whatsAppChannelsOf(workspaceId, { phoneNumber: update.phoneNumber });
    if (update.wabaId) {
      const ofAccount = await this.channels.whatsAppChannelsOf(workspaceId, { wabaId: update.wabaId });
      if (ofAccount.length > 0) return ofAccount;
    }
    return [await this.channels.get(workspaceId, channelId, 'whatsapp')];
  }
}
