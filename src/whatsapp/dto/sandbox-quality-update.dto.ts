import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { IsOptionalNotNull } from '../../common/validation/optional.js';

/** Meta's `phone_number_quality_update` events the sandbox can play. */
export const SANDBOX_QUALITY_EVENTS = ['UPGRADE', 'DOWNGRADE', 'FLAGGED', 'UNFLAGGED', 'THROUGHPUT_UPGRADE'] as const;
/** Meta's messaging-limit tiers (`max_daily_conversations_per_business`). */
export const SANDBOX_LIMIT_TIERS = ['TIER_50', 'TIER_250', 'TIER_1K', 'TIER_2K', 'TIER_10K', 'TIER_100K', 'TIER_UNLIMITED'] as const;

/** Admin: Meta's `phone_number_quality_update` for a sandbox channel's number, as if Meta had sent it. */
export class SandboxQualityUpdateDto {
  @ApiProperty({
    enum: SANDBOX_QUALITY_EVENTS,
    description: "Meta's event: a tier up or down, the quality flagged or no longer low, or the higher throughput.",
  })
  @IsIn(SANDBOX_QUALITY_EVENTS)
  event: (typeof SANDBOX_QUALITY_EVENTS)[number];

  @ApiPropertyOptional({
    enum: SANDBOX_LIMIT_TIERS,
    description: "The business portfolio's new messaging limit, as Meta names it; left out: unchanged.",
  })
  @IsOptionalNotNull()
  @IsIn(SANDBOX_LIMIT_TIERS)
  messagingLimit?: (typeof SANDBOX_LIMIT_TIERS)[number];

  @ApiPropertyOptional({
    enum: ['GREEN', 'YELLOW', 'RED'],
    description: "The number's quality rating; left out: as the event implies (FLAGGED: RED).",
  })
  @IsOptionalNotNull()
  @IsIn(['GREEN', 'YELLOW', 'RED'])
  qualityRating?: 'GREEN' | 'YELLOW' | 'RED';
}
