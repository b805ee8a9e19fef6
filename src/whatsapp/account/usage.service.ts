import { Injectable } from '@nestjs/common';
import { ChannelsService } from '../../channels/channels.service.js';
import type { PricedEvent } from '../../conversations/message-events.service.js';
import { TimestampFormat } from '../../common/time/timestamp-format.js';
import {
  EmptyRateCard,
  InvalidCurrency,
  InvalidPrice,
  InvalidUsageRange,
  RateCardNotFound,
  UnknownPricingCategory,
} from './account.errors.js';
import type { CampaignUsageDto, CategoryCountsDto, UsageCountsDto, UsageDto, UsageGroupDto, UsageQueryDto } from './dto/usage.dto.js';
import type { PutRateCardDto, RateCardDto } from './dto/rate-card.dto.js';
import { PRICING_CATEGORIES } from './pricing-categories.js';
import type { WhatsAppRateCard } from './rate-card.entity.js';
import { WhatsAppRateCardsRepository } from './rate-cards.repository.js';
import { NO_CAMPAIGN } from './usage-day.entity.js';
import { WhatsAppUsageRepository, type UsageSum } from './usage.repository.js';

/** The longest range one usage query reads (a year and a day). */
const MAX_DAYS = 366;
const DAY_MS = 86_400_000;
const ISO_4217 = new Set(Intl.supportedValuesOf('currency'));

const dayOf = (date: Date) => date.toISOString().slice(0, 10);

/**
 * What the workspace's WhatsApp messages cost: the usage rollup, filled as Meta's statuses report
 * pricing (one count per message), read by day, category or campaign; and the workspace's own
 * rate card, the only source of prices (the service never invents one).
 */
@Injectable()
export class WhatsAppUsage {
  constructor(
    private readonly usage: WhatsAppUsageRepository,
    private readonly rateCards: WhatsAppRateCardsRepository,
    private readonly channels: ChannelsService,
  ) {}

  /** Counts messages Meta priced (the first status that carried each one's pricing), each on the UTC day of its `at`. Runs in the caller's transaction. */
  count(workspaceId: string, priced: ReadonlyArray<{ event: PricedEvent; at: Date }>): Promise<void> {
    return this.usage.add(
      workspaceId,
      priced.map(({ event, at }) => {
        const campaignId = event.attachment?.campaignId;
        return {
          channelId: event.channel_id,
          day: dayOf(at),
          campaignId: typeof campaignId === 'string' ? campaignId : NO_CAMPAIGN,
          category: event.pricing.category ?? '',
          pricingType: event.pricing.type ?? '',
          billable: event.pricing.billable,
        };
      }),
    );
  }

  /** GET /v1/whatsapp/usage. */
  async query(workspaceId: string, query: UsageQueryDto): Promise<UsageDto> {
    const channelId = query.channelId ?? null;
    if (channelId) await this.channels.get(workspaceId, channelId, 'whatsapp');
    const to = query.to ?? dayOf(new Date());
    const from = query.from ?? dayOf(new Date(Date.parse(`${to}T00:00:00Z`) - 29 * DAY_MS));
    this.checkRange(from, to);
    const groupBy = query.groupBy ?? 'category';
    const [sums, card] = await Promise.all([
      this.usage.sums(workspaceId, channelId, from, to, groupBy),
      this.rateCards.findOne(workspaceId, {}),
    ]);
    const groups = new Map<string, UsageSum[]>();
    for (const sum of sums) groups.set(sum.key, [...(groups.get(sum.key) ?? []), sum]);
    const items = [...groups].map(([key, of]): UsageGroupDto => ({
      day: groupBy === 'day' ? key : null,
      category: groupBy === 'category' ? key || null : null,
      campaignId: groupBy === 'campaign' && key !== NO_CAMPAIGN ? key : null,
      ...counted(of, card),
    }));
    const totals = counted(sums, card);
    const unpricedCategories = card
      ? Object.entries(totals.byCategory)
          .filter(([category, counts]) => counts.billable > 0 && card.perCategory[category] === undefined)
          .map(([category]) => category)
      : [];
    return { channelId, from, to, groupBy, currency: card?.currency ?? null, unpricedCategories, totals, items };
  }

  /** CampaignDto's usage of each campaign (a campaign without priced messages is absent). */
  async ofCampaigns(workspaceId: string, campaignIds: readonly string[]): Promise<Map<string, CampaignUsageDto>> {
    const sums = await this.usage.ofCampaigns(workspaceId, campaignIds);
    const byCampaign = new Map<string, UsageSum[]>();
    for (const sum of sums) byCampaign.set(sum.key, [...(byCampaign.get(sum.key) ?? []), sum]);
    return new Map(
      [...byCampaign].map(([id, of]) => {
        const { billable, free, byCategory } = counted(of, null);
        return [id, { billable, free, byCategory }];
      }),
    );
  }

  /** GET /v1/whatsapp/rate-card: a 404 when the workspace has none. */
  async rateCard(workspaceId: string): Promise<RateCardDto> {
    const card = await this.rateCards.findOne(workspaceId, {});
    if (!card) throw RateCardNotFound();
    return rateCardDto(card);
  }

  /** PUT /v1/whatsapp/rate-card: replaces the workspace's rate card. */
  async putRateCard(workspaceId: string, input: PutRateCardDto): Promise<RateCardDto> {
    const currency = input.currency.trim().toUpperCase();
    if (!/^[A-Z]{3}$/.test(currency) || !ISO_4217.has(currency)) throw InvalidCurrency(input.currency);
    const entries = Object.entries(input.perCategory);
    if (entries.length === 0) throw EmptyRateCard();
    const perCategory: Record<string, number> = {};
    for (const [given, price] of entries) {
      const category = given.toLowerCase();
      if (!(PRICING_CATEGORIES as readonly string[]).includes(category)) throw UnknownPricingCategory(given, PRICING_CATEGORIES);
      if (typeof price !== 'number' || !Number.isFinite(price) || price < 0 || price >= 1000) throw InvalidPrice(given);
      perCategory[category] = price;
    }
    return rateCardDto(await this.rateCards.put(workspaceId, currency, perCategory));
  }

  private checkRange(from: string, to: string): void {
    const start = Date.parse(`${from}T00:00:00Z`);
    const end = Date.parse(`${to}T00:00:00Z`);
    if (Number.isNaN(start) || dayOf(new Date(start)) !== from) throw InvalidUsageRange(`from '${from}' is not a calendar day.`);
    if (Number.isNaN(end) || dayOf(new Date(end)) !== to) throw InvalidUsageRange(`to '${to}' is not a calendar day.`);
    if (start > end) throw InvalidUsageRange('from must not be after to.');
    if ((end - start) / DAY_MS + 1 > MAX_DAYS) throw InvalidUsageRange(`A usage query reads at most ${MAX_DAYS} days.`);
  }
}

/** The counts of these sums, by category, priced with `card` when there is one. */
function counted(sums: readonly UsageSum[], card: Pick<WhatsAppRateCard, 'perCategory'> | null): UsageCountsDto {
  const byCategory: Record<string, CategoryCountsDto> = {};
  let billable = 0;
  let free = 0;
  let cost = 0;
  for (const sum of sums) {
    const name = sum.category || 'unknown';
    const counts = (byCategory[name] ??= { billable: 0, free: 0 });
    if (sum.billable) {
      counts.billable += sum.messages;
      billable += sum.messages;
      cost += sum.messages * (card?.perCategory[sum.category] ?? 0);
    } else {
      counts.free += sum.messages;
      free += sum.messages;
    }
  }
  return { billable, free, byCategory, estimatedCost: card ? Math.round(cost * 1e6) / 1e6 : null };
}

function rateCardDto(card: WhatsAppRateCard): RateCardDto {
  return { currency: card.currency, perCategory: card.perCategory, updatedAt: TimestampFormat.utc(card.updatedAt) };
}
