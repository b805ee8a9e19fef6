import { ApiProperty, OmitType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsInt, IsString, IsUUID, Max, MaxLength, Min, MinLength } from 'class-validator';
import { PagedRequestDto } from '../../common/paging/paged-request.dto.js';
import { IsIsoDateTime } from '../../common/time/iso-date-time.js';
import { formatTimestamp, TimestampFormat } from '../../common/time/timestamp-format.js';
import { IsOptionalNotNull } from '../../common/validation/optional.js';
import { ValidateNestedObject } from '../../common/validation/nested.js';
import { SearchContactsDto } from '../../contacts/dto/search-contacts.dto.js';
import { TemplateParameterDto } from '../../whatsapp/dto/send-template.dto.js';
import { CampaignUsageDto } from '../../whatsapp/account/dto/usage.dto.js';
import { CreateOutboundIvrRequest } from '../../outbound-ivr/dto/create-outbound-ivr.dto.js';
import {
  CAMPAIGN_KINDS,
  CAMPAIGN_STATUSES,
  REDIAL_ENDINGS,
  type Campaign,
  type CampaignKind,
  type CampaignStatus,
  type RedialEnding,
} from '../campaign.entity.js';

export const RECIPIENT_STATUSES = [
  'Pending',
  'Scheduled',
  'Sent',
  'Delivered',
  'Read',
  'Replied',
  'Failed',
  'SkippedOptedOut',
  'SkippedNoPhone',
  'Cancelled',
  'Completed',
  'NoAnswer',
  'Busy',
] as const;
export type RecipientStatus = (typeof RECIPIENT_STATUSES)[number];

/** The most contact ids one campaign names (a larger audience is a tag or a search). */
export const MAX_AUDIENCE_CONTACT_IDS = 100_000;

/** The template every recipient gets: Send Template's fields, with per-recipient placeholders in text values. */
export class CampaignTemplateDto {
  /** Name of the approved template. */
  @ApiProperty({ example: 'spring_sale' }) @IsString() @MinLength(1) @MaxLength(512) templateName: string;
  /** Language code of the template. */
  @ApiProperty({ example: 'en_US' }) @IsString() @MinLength(2) @MaxLength(20) language: string;
  /**
   * Send Template's parameters. A `text` value may hold `{{contact.name}}`, `{{contact.company}}` or
   * `{{property.<Name>}}` (a Text or Select contact property, by name), filled per recipient.
   */
  @ApiProperty({
    required: false,
    type: [TemplateParameterDto],
    default: [],
    example: [{ type: 'Body', values: [{ type: 'text', text: '{{contact.name}}' }] }],
  })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(20)
  @ValidateNestedObject({ each: true })
  @Type(() => TemplateParameterDto)
  parameters: TemplateParameterDto[] = [];
}

/** Who the campaign reaches: exactly one of `contactIds`, `tagIds`, `search`; fixed (snapshotted) at start. */
export class CampaignAudienceDto {
  /** These contacts of the workspace (ids of no contact of the workspace are left out). */
  @ApiProperty({ required: false, type: [String], format: 'uuid' })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_AUDIENCE_CONTACT_IDS)
  @IsUUID('all', { each: true })
  contactIds?: string[];
  /** Contacts with a conversation carrying any of these tags. */
  @ApiProperty({ required: false, type: [String], format: 'uuid' })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @IsUUID('all', { each: true })
  tagIds?: string[];
  /** Search Contacts' criteria (its paging and sorting are ignored): every matching contact. */
  @IsOptionalNotNull() @ValidateNestedObject() @Type(() => SearchContactsDto) search?: SearchContactsDto;
}

/** The call every recipient gets: Create Outbound IVR's body without what the campaign gives (the channel, the number, the externalId, when). */
export class CampaignIvrDto extends OmitType(CreateOutboundIvrRequest, [
  'channelId',
  'destinationNumber',
  'externalId',
  'sendAt',
] as const) {}

/** IVR campaigns: calls that end NoAnswer, Busy or (result 8) AnsweringMachine are placed again, up to `maxAttempts` in all. */
export class CampaignRedialDto {
  @ApiProperty({ minimum: 1, maximum: 5, example: 3 }) @IsInt() @Min(1) @Max(5) maxAttempts: number;
  @ApiProperty({ enum: REDIAL_ENDINGS, isArray: true, example: ['NoAnswer', 'Busy'] })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(REDIAL_ENDINGS.length)
  @IsIn(REDIAL_ENDINGS, { each: true })
  on: RedialEnding[];
  /** Minutes after a call ended before the next one (0: at once). */
  @ApiProperty({ minimum: 0, maximum: 1440, example: 30 }) @IsInt() @Min(0) @Max(1440) delayMinutes: number;
}

export class CreateCampaignDto {
  @ApiProperty({ example: 'Spring sale 2026' }) @IsString() @MinLength(1) @MaxLength(200) name: string;
  /** The channel every message or call leaves from. */
  @IsUUID() channelId: string;
  @ApiProperty({ enum: CAMPAIGN_KINDS, example: 'WhatsAppTemplate' }) @IsIn(CAMPAIGN_KINDS) kind: CampaignKind;
  /** Required for `WhatsAppTemplate`. */
  @IsOptionalNotNull() @ValidateNestedObject() @Type(() => CampaignTemplateDto) template?: CampaignTemplateDto;
  /** Required for `OutboundIvr`: Create Outbound IVR's body without `channelId`, `destinationNumber` and `externalId`. */
  @IsOptionalNotNull() @ValidateNestedObject() @Type(() => CampaignIvrDto) ivr?: CampaignIvrDto;
  @ValidateNestedObject() @Type(() => CampaignAudienceDto) audience: CampaignAudienceDto;
  /** When a started campaign begins sending (ISO 8601, future, at most 30 days ahead); absent: at start. */
  @ApiProperty({ required: false, type: String, format: 'date-time', example: '2026-03-01T09:00:00Z' })
  @IsOptionalNotNull()
  @IsIsoDateTime()
  scheduledAt?: string;
  /** IVR campaigns only. */
  @IsOptionalNotNull() @ValidateNestedObject() @Type(() => CampaignRedialDto) redial?: CampaignRedialDto;
}

export class ListCampaignsQueryDto extends PagedRequestDto {
  @ApiProperty({ required: false, enum: CAMPAIGN_STATUSES }) @IsOptionalNotNull() @IsIn(CAMPAIGN_STATUSES) status?: CampaignStatus;
}

export class ListCampaignRecipientsQueryDto extends PagedRequestDto {
  @ApiProperty({ required: false, enum: RECIPIENT_STATUSES }) @IsOptionalNotNull() @IsIn(RECIPIENT_STATUSES) status?: RecipientStatus;
}

/**
 * Recipients by status. `sent` ⊇ `delivered` ⊇ `read` is a funnel (a read message was sent and
 * delivered); `replied` counts recipients who wrote back within 7 days of the send; the other counts
 * are the recipients whose status is that.
 */
export class CampaignCountsDto {
  total: number;
  /** Not yet handed to the provider. */
  pending: number;
  sent: number;
  delivered: number;
  read: number;
  replied: number;
  failed: number;
  skippedOptedOut: number;
  skippedNoPhone: number;
  /** Waiting out the contact's quiet hours. */
  scheduledQuietHours: number;
  /** IVR: calls answered by a person (an answering machine's answer, result 8, is not counted). */
  answered: number;
  /** IVR: calls where a digit was pressed. */
  digitPressed: number;

  static readonly zero: CampaignCountsDto = {
    total: 0,
    pending: 0,
    sent: 0,
    delivered: 0,
    read: 0,
    replied: 0,
    failed: 0,
    skippedOptedOut: 0,
    skippedNoPhone: 0,
    scheduledQuietHours: 0,
    answered: 0,
    digitPressed: 0,
  };
}

export class CampaignDto {
  id: string;
  name: string;
  channelId: string;
  @ApiProperty({ enum: CAMPAIGN_KINDS }) kind: CampaignKind;
  @ApiProperty({ enum: CAMPAIGN_STATUSES }) status: CampaignStatus;
  /**
   * `Manual`; `MessagingLimitReached` when the channel's messaging limit paused it; `TemplatePaused`,
   * `TemplateDisabled` or `TemplateRecategorisedToMarketing` when Meta changed its template;
   * `TemplateNotApproved` when a send found the template no longer approved, `TemplateNotFound` when
   * it was deleted. Null unless Paused.
   */
  @ApiProperty({ type: String, nullable: true, example: null }) pausedReason: string | null;
  /** ISO 8601 UTC. */
  @ApiProperty({ type: String, nullable: true }) scheduledAt: string | null;
  @ApiProperty({ type: String, nullable: true }) startedAt: string | null;
  @ApiProperty({ type: String, nullable: true }) completedAt: string | null;
  counts: CampaignCountsDto;
  /** Its messages Meta priced (from their status webhooks), billable and free, by pricing category. */
  usage: CampaignUsageDto;
  /** ISO 8601 UTC. */
  creationTime: string;

  static from(
    campaign: Campaign,
    counts: CampaignCountsDto = CampaignCountsDto.zero,
    usage: CampaignUsageDto = CampaignUsageDto.zero,
  ): CampaignDto {
    return {
      id: campaign.id,
      name: campaign.name,
      channelId: campaign.channelId,
      kind: campaign.kind,
      status: campaign.status,
      pausedReason: campaign.pausedReason,
      scheduledAt: formatTimestamp(campaign.scheduledAt, TimestampFormat.utc),
      startedAt: formatTimestamp(campaign.startedAt, TimestampFormat.utc),
      completedAt: formatTimestamp(campaign.completedAt, TimestampFormat.utc),
      counts,
      usage,
      creationTime: TimestampFormat.utc(campaign.creationTime),
    };
  }
}

/** One recipient as its campaign reached it. */
export class CampaignRecipientDto {
  contactId: string;
  @ApiProperty({ type: String, nullable: true, example: '+966501234567' }) phoneNumber: string | null;
  /**
   * The contact's WhatsApp business-scoped user id (BSUID) when the campaign started: an IVR campaign
   * on a WhatsApp channel with calling calls a contact without a number by it (on a phone line such a
   * contact is SkippedNoPhone, `errorCode` OutboundIvr:PhoneNumberRequired).
   */
  @ApiProperty({ type: String, nullable: true, example: 'US.13491208655302741918' }) whatsAppUserId: string | null;
  @ApiProperty({ enum: RECIPIENT_STATUSES }) status: RecipientStatus;
  /** The WhatsApp send (template campaigns). */
  @ApiProperty({ type: String, nullable: true }) conversationEventId: string | null;
  /** The call (IVR campaigns). */
  @ApiProperty({ type: String, nullable: true }) outboundIvrId: string | null;
  /** Why it failed: the provider's code, or ours (`Policy:FrequencyCapReached`). */
  @ApiProperty({ type: String, nullable: true }) errorCode: string | null;
  /** ISO 8601 UTC. */
  updatedAt: string;
}
