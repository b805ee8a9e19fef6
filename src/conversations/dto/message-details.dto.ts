import { ApiProperty } from '@nestjs/swagger';
import type { EditedVersion, ReferralInfo, ReferredProductInfo, ReplyInfo } from '../message-details.js';

/** The click-to-WhatsApp ad or post a message came from (Meta's `referral`). */
export class ReferralDto implements ReferralInfo {
  @ApiProperty({ type: String, nullable: true, description: 'The ad or post on Facebook or Instagram.' }) sourceUrl: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The ad or post id.' }) sourceId: string | null;
  @ApiProperty({ type: String, nullable: true, description: '`ad` or `post`.' }) sourceType: string | null;
  @ApiProperty({ type: String, nullable: true }) headline: string | null;
  @ApiProperty({ type: String, nullable: true }) body: string | null;
  @ApiProperty({ type: String, nullable: true, description: '`image` or `video`.' }) mediaType: string | null;
  @ApiProperty({ type: String, nullable: true }) imageUrl: string | null;
  @ApiProperty({ type: String, nullable: true }) videoUrl: string | null;
  @ApiProperty({ type: String, nullable: true }) thumbnailUrl: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The click id, for Meta’s Conversions API.' }) ctwaClid: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The ad’s welcome message.' }) welcomeMessage: string | null;
}

/** A catalog product the customer asked about (Meta's `context.referred_product`). */
export class ReferredProductDto implements ReferredProductInfo {
  @ApiProperty({ type: String, nullable: true }) catalogId: string | null;
  @ApiProperty({ type: String, nullable: true }) productRetailerId: string | null;
}

export class EditedVersionDto implements EditedVersion {
  @ApiProperty({ type: String, nullable: true, description: 'The body before this edit.' }) body: string | null;
  /** ISO 8601 UTC: when the edit replaced it. */
  editedAt: string;
}

/** A reply's quoted message: our event id (null when we never stored it) and the provider's id. */
export class ReplyToDto implements Required<ReplyInfo> {
  @ApiProperty({ type: String, nullable: true }) repliedToEventId: string | null;
  @ApiProperty({ type: String, nullable: true }) repliedToBody: string | null;
  @ApiProperty({ type: String, nullable: true }) repliedToProviderMessageId: string | null;
}
