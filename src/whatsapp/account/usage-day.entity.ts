import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** The `campaignId` of messages no campaign sent (a key column cannot be null). */
export const NO_CAMPAIGN = '00000000-0000-0000-0000-000000000000';

/**
 * The usage rollup: how many messages of a channel Meta priced on one UTC day, per campaign, category,
 * pricing type and whether they are charged. One upsert per message, when its first status carrying
 * `pricing` arrives; GET /v1/whatsapp/usage and CampaignDto.usage read only this table.
 */
@Entity('whatsapp_usage_days')
@Index('IDX_whatsapp_usage_days_campaign', ['workspaceId', 'campaignId'])
export class WhatsAppUsageDay {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'PK_whatsapp_usage_days' }) workspaceId: string;
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'PK_whatsapp_usage_days' }) channelId: string;
  /** The UTC day of the status that first carried the message's pricing. */
  @PrimaryColumn('date', { primaryKeyConstraintName: 'PK_whatsapp_usage_days' }) day: string;
  /** The campaign that sent the messages, or {@link NO_CAMPAIGN}. */
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'PK_whatsapp_usage_days' }) campaignId: string;
  /** Meta's `pricing.category` (lower case); '' when the status named none. */
  @PrimaryColumn({ type: 'varchar', length: 40, primaryKeyConstraintName: 'PK_whatsapp_usage_days' }) category: string;
  /** Meta's `pricing.type` (regular, free_customer_service, free_entry_point); '' under the per-conversation model. */
  @PrimaryColumn({ type: 'varchar', length: 40, primaryKeyConstraintName: 'PK_whatsapp_usage_days' }) pricingType: string;
  @PrimaryColumn({ type: 'boolean', primaryKeyConstraintName: 'PK_whatsapp_usage_days' }) billable: boolean;
  @Column({ type: 'integer', default: 0 }) messages: number;
}
