import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsUUID, Matches } from 'class-validator';
import { IsOptionalNotNull } from '../../../common/validation/optional.js';
import type { UsageGroupBy } from '../usage.repository.js';

export const USAGE_GROUPS: readonly UsageGroupBy[] = ['day', 'category', 'campaign'];
const DAY = /^\d{4}-\d{2}-\d{2}$/;

export class UsageQueryDto {
  /** One channel of the workspace; every channel when absent. */
  @ApiProperty({ required: false, format: 'uuid' }) @IsOptionalNotNull() @IsUUID() channelId?: string;
  /** First UTC day counted, `YYYY-MM-DD` (default: 29 days before `to`). */
  @ApiProperty({ required: false, example: '2026-11-01' })
  @IsOptionalNotNull()
  @Matches(DAY, { message: 'from must be a day as YYYY-MM-DD' })
  from?: string;
  /** Last UTC day counted, `YYYY-MM-DD`, inclusive (default: today). */
  @ApiProperty({ required: false, example: '2026-11-30' })
  @IsOptionalNotNull()
  @Matches(DAY, { message: 'to must be a day as YYYY-MM-DD' })
  to?: string;
  @ApiProperty({ required: false, enum: USAGE_GROUPS, default: 'category' })
  @IsOptionalNotNull()
  @IsIn(USAGE_GROUPS)
  groupBy?: UsageGroupBy;
}

/** Messages of one category: those Meta charges and those it does not. */
export class CategoryCountsDto {
  @ApiProperty({ example: 120 }) billable: number;
  @ApiProperty({ example: 4 }) free: number;
}

/** Counts of messages Meta priced, by category, with the rate card's estimate when the workspace has one. */
export class UsageCountsDto {
  @ApiProperty({ example: 120 }) billable: number;
  @ApiProperty({ example: 4 }) free: number;
  /** Per Meta pricing category (marketing, marketing_lite, utility, authentication, authentication_international, service, …). */
  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: '#/components/schemas/CategoryCountsDto' },
    example: { marketing: { billable: 100, free: 0 }, utility: { billable: 20, free: 4 } },
  })
  byCategory: Record<string, CategoryCountsDto>;
  /** The billable counts priced with the workspace's rate card, in its currency; null without a rate card. */
  @ApiProperty({ type: Number, nullable: true, example: 5.472 }) estimatedCost: number | null;
}

/** One group of the usage answer: its key is the field `groupBy` names (the others are null). */
export class UsageGroupDto extends UsageCountsDto {
  /** groupBy=day: the UTC day, `YYYY-MM-DD`. */
  @ApiProperty({ type: String, nullable: true, example: null }) day: string | null;
  /** groupBy=category: Meta's category. */
  @ApiProperty({ type: String, nullable: true, example: 'marketing' }) category: string | null;
  /** groupBy=campaign: the campaign that sent the messages (null in that grouping: messages of no campaign). */
  @ApiProperty({ type: String, nullable: true, format: 'uuid', example: null }) campaignId: string | null;
}

export class UsageDto {
  @ApiProperty({ type: String, nullable: true, format: 'uuid' }) channelId: string | null;
  @ApiProperty({ example: '2026-11-01' }) from: string;
  @ApiProperty({ example: '2026-11-30' }) to: string;
  @ApiProperty({ enum: USAGE_GROUPS }) groupBy: UsageGroupBy;
  /** The rate card's currency; null without a rate card. */
  @ApiProperty({ type: String, nullable: true, example: 'EUR' }) currency: string | null;
  /** Billable categories counted that the rate card gives no price (their messages are not in estimatedCost). */
  @ApiProperty({ type: [String], example: [] }) unpricedCategories: string[];
  totals: UsageCountsDto;
  @ApiProperty({ type: [UsageGroupDto] }) items: UsageGroupDto[];
}

/** CampaignDto's usage: its messages Meta priced, billable and free, by category. */
export class CampaignUsageDto {
  @ApiProperty({ example: 120 }) billable: number;
  @ApiProperty({ example: 0 }) free: number;
  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: '#/components/schemas/CategoryCountsDto' },
    example: { marketing: { billable: 120, free: 0 } },
  })
  byCategory: Record<string, CategoryCountsDto>;

  static readonly zero: CampaignUsageDto = { billable: 0, free: 0, byCategory: {} };
}
