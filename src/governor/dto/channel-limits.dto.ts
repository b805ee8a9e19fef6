import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsInt, Max, Min } from 'class-validator';
import { IsOptionalNotNull } from '../../common/validation/optional.js';
import { OptionalNullable } from '../../common/validation/optional-nullable.decorator.js';
import { MESSAGING_LIMIT_TIERS } from '../channel-limits.entity.js';
import type { ChannelUsage } from '../send-governor.service.js';

/** Operators' PUT: only the fields present change. */
export class UpdateChannelLimitsDto {
  /** Cloud API messages started per second on this number (Meta's throughput: 80 by default, up to 1,000 once upgraded). */
  @ApiProperty({ required: false, minimum: 1, maximum: 1000, example: 80 })
  @IsOptionalNotNull()
  @IsInt()
  @Min(1)
  @Max(1000)
  throughputPerSecond?: number;

  /** Unique recipients of business-initiated conversations per rolling 24 h (Meta's messaging limit tier); null: unlimited. */
  @ApiProperty({ required: false, nullable: true, enum: MESSAGING_LIMIT_TIERS, example: 1000 })
  @OptionalNullable()
  @IsIn(MESSAGING_LIMIT_TIERS, { message: `messagingLimit must be one of ${MESSAGING_LIMIT_TIERS.join(', ')}, or null (unlimited)` })
  messagingLimit?: number | null;

  /** Outbound IVR calls placed per second on this channel. */
  @ApiProperty({ required: false, minimum: 1, maximum: 1000, example: 1 })
  @IsOptionalNotNull()
  @IsInt()
  @Min(1)
  @Max(1000)
  callsPerSecond?: number;

  /** Outbound IVR calls in progress at once on this channel. */
  @ApiProperty({ required: false, minimum: 1, maximum: 10000, example: 10 })
  @IsOptionalNotNull()
  @IsInt()
  @Min(1)
  @Max(10000)
  concurrentCalls?: number;
}

/** A channel's send tiers and what its governor sees now (API.md §13). */
export class ChannelLimitsDto {
  /** Cloud API messages that may start in any one second. */
  @ApiProperty({ example: 80 }) throughputPerSecond: number;
  /** Messages that started in the last second. */
  @ApiProperty({ example: 12 }) sentLastSecond: number;
  /** Unique recipients of business-initiated conversations allowed per rolling 24 h; null: unlimited. */
  @ApiProperty({ nullable: true, type: Number, example: 1000 }) messagingLimit: number | null;
  /** Recipients counted against the messaging limit in the last 24 h. */
  @ApiProperty({ example: 140 }) uniqueRecipients24h: number;
  /** New recipients still allowed in the rolling 24 h; null when unlimited. */
  @ApiProperty({ nullable: true, type: Number, example: 860 }) remaining24h: number | null;
  /** Outbound IVR calls that may be placed per second. */
  @ApiProperty({ example: 1 }) callsPerSecond: number;
  /** Outbound IVR calls that may be in progress at once. */
  @ApiProperty({ example: 10 }) concurrentCalls: number;
  /** Outbound IVR calls in progress now. */
  @ApiProperty({ example: 3 }) activeCalls: number;
  /**
   * Who set the tiers last: `Operator` (Set Channel Limits) or `Meta` (its phone_number_quality_update or
   * account_update webhook); null while the channel has its defaults. The last one wins: an operator's
   * values hold until Meta next reports the tiers it changes.
   */
  @ApiProperty({ nullable: true, type: String, enum: ['Operator', 'Meta'], example: 'Meta' }) setBy: 'Operator' | 'Meta' | null;
  /** The number's quality as Meta last reported it (`GREEN`, `YELLOW`, `RED`, `UNKNOWN`); null until it did. */
  @ApiProperty({ nullable: true, type: String, example: 'GREEN' }) qualityRating: string | null;
  /** The channel's business portfolio: its messaging-limit count (uniqueRecipients24h) is shared by the workspace's channels with this id. */
  @ApiProperty({ nullable: true, type: String, example: '1029384756102938' }) businessId: string | null;

  static from(usage: ChannelUsage): ChannelLimitsDto {
    const {
      throughputPerSecond,
      sentLastSecond,
      messagingLimit,
      uniqueRecipients24h,
      remaining24h,
      callsPerSecond,
      concurrentCalls,
      activeCalls,
      setBy,
      qualityRating,
      businessId,
    } = usage;
    return {
      throughputPerSecond,
      sentLastSecond,
      messagingLimit,
      uniqueRecipients24h,
      remaining24h,
      callsPerSecond,
      concurrentCalls,
      activeCalls,
      setBy,
      qualityRating,
      businessId,
    };
  }
}
