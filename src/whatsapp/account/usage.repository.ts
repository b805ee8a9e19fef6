import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '../../database/workspace-scoped.repository.js';
import { WhatsAppUsageDay } from './usage-day.entity.js';

/** One message Meta priced, as the rollup counts it. */
export type PricedMessage = Omit<WhatsAppUsageDay, 'workspaceId' | 'messages'>;

export type UsageGroupBy = 'day' | 'category' | 'campaign';

/** A rollup sum: the messages of one group, category and chargeability. */
export interface UsageSum {
  key: string;
  category: string;
  billable: boolean;
  messages: number;
}

const GROUP_KEY: Record<UsageGroupBy, string> = {
  day: `to_char(day, 'YYYY-MM-DD')`,
  category: 'category',
  campaign: 'campaign_id::text',
};

@Injectable()
export class WhatsAppUsageRepository extends WorkspaceScopedRepository<WhatsAppUsageDay> {
  constructor(@InjectRepository(WhatsAppUsageDay) repository: Repository<WhatsAppUsageDay>) {
    super(repository);
  }

  /** Counts priced messages: one upsert of their days' rows (messages of one row summed first). */
  async add(workspaceId: string, messages: readonly PricedMessage[]): Promise<void> {
    if (messages.length === 0) return;
    const input = messages.map((m) => ({
      channel_id: m.channelId,
      day: m.day,
      campaign_id: m.campaignId,
      category: m.category,
      pricing_type: m.pricingType,
      billable: m.billable,
    }));
    await this.sql(
      workspaceId,
      `INSERT INTO whatsapp_usage_days (workspace_id, channel_id, day, campaign_id, category, pricing_type, billable, messages)
       SELECT $1::uuid, channel_id, day, campaign_id, category, pricing_type, billable, count(*)
         FROM jsonb_to_recordset($2::jsonb)
           AS i(channel_id uuid, day date, campaign_id uuid, category varchar, pricing_type varchar, billable boolean)
        GROUP BY 1, 2, 3, 4, 5, 6, 7
       ON CONFLICT ON CONSTRAINT "PK_whatsapp_usage_days" DO UPDATE SET messages = whatsapp_usage_days.messages + EXCLUDED.messages
       WHERE whatsapp_usage_days.workspace_id = $1`,
      [JSON.stringify(input)],
    );
  }

  /** The sums of the days `from`..`to` (inclusive, `YYYY-MM-DD`), of one channel or all, by `groupBy`, category and chargeability. */
  async sums(workspaceId: string, channelId: string | null, from: string, to: string, groupBy: UsageGroupBy): Promise<UsageSum[]> {
    const key = GROUP_KEY[groupBy];
    const rows = await this.sql<{ key: string; category: string; billable: boolean; messages: string }>(
      workspaceId,
      `SELECT ${key} AS key, category, billable, sum(messages)::bigint AS messages FROM whatsapp_usage_days
        WHERE workspace_id = $1 AND day BETWEEN $2::date AND $3::date ${channelId ? 'AND channel_id = $4' : ''}
        GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
      channelId ? [from, to, channelId] : [from, to],
    );
    return rows.map((r) => ({ ...r, messages: Number(r.messages) }));
  }

  /** The sums of these campaigns, by campaign (key), category and chargeability. */
  async ofCampaigns(workspaceId: string, campaignIds: readonly string[]): Promise<UsageSum[]> {
    if (campaignIds.length === 0) return [];
    const rows = await this.sql<{ key: string; category: string; billable: boolean; messages: string }>(
      workspaceId,
      `SELECT campaign_id::text AS key, category, billable, sum(messages)::bigint AS messages FROM whatsapp_usage_days
        WHERE workspace_id = $1 AND campaign_id = ANY($2::uuid[])
        GROUP BY 1, 2, 3`,
      [campaignIds],
    );
    return rows.map((r) => ({ ...r, messages: Number(r.messages) }));
  }
}
