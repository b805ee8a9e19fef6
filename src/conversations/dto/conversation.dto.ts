import { ApiProperty } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsOptional, IsString, IsUUID, MaxLength, ArrayMaxSize, IsArray } from 'class-validator';
import { PhoneNumberField, PhoneNumberFilterField } from '../../common/phone/phone-number.js';
import { SortedPagedRequestDto } from '../../common/paging/paged-request.dto.js';
import { IntEnumProperty, IsIntEnum } from '../../openapi/int-enum.js';
import type { Channel } from '../../channels/channel.entity.js';
import { ChannelType } from '../../channels/channel-type.js';
import { formatTimestamp, TimestampFormat } from '../../common/time/timestamp-format.js';
import type { Contact } from '../../contacts/contact.entity.js';
import { ContactType } from '../../contacts/contact-type.js';
import { TagDto } from '../../tags/dto/tag.dto.js';
import { ReferralDto } from './message-details.dto.js';
import type { Tag } from '../../tags/tag.entity.js';
import { type Conversation, ConversationStatus, EventDirection, EventSourceType } from '../conversation.entity.js';
import { IsOptionalNotNull } from '../../common/validation/optional.js';
import { IsIsoDateTime } from '../../common/time/iso-date-time.js';

/** `a,b,c` (or repeated parameters) → array. */
const commaList = ({ value }: { value: unknown }) =>
  (Array.isArray(value) ? value : typeof value === 'string' ? [value] : [])
    .flatMap((item: unknown) => String(item).split(','))
    .map((item) => item.trim())
    .filter(Boolean);
const toBoolean = ({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value);
const toInt = ({ value }: { value: unknown }) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value);

export class ListConversationsQueryDto extends SortedPagedRequestDto {
  @IsOptionalNotNull()
  @Transform(toInt)
  @IntEnumProperty(ConversationStatus, 'ConversationStatus')
  @IsIntEnum(ConversationStatus)
  status?: ConversationStatus;
  /** Comma-separated user ids (`userId` of Get Workspace Users). */
  @ApiProperty({ required: false, type: String })
  @IsOptionalNotNull()
  @Transform(commaList)
  @IsArray()
  @ArrayMaxSize(100)
  @IsUUID('all', { each: true })
  assigneeUserIds?: string[];
  /** Only conversations nobody (user or AI agent) is assigned to. */
  @IsOptionalNotNull() @Transform(toBoolean) @IsBoolean() getUnAssigned?: boolean;
  @ApiProperty({ required: false, type: String, description: 'Comma-separated contact ids.' })
  @IsOptionalNotNull()
  @Transform(commaList)
  @IsArray()
  @ArrayMaxSize(100)
  @IsUUID('all', { each: true })
  contactIds?: string[];
  @ApiProperty({ required: false, type: String, description: 'Comma-separated tag ids: conversations carrying any of them.' })
  @IsOptionalNotNull()
  @Transform(commaList)
  @IsArray()
  @ArrayMaxSize(100)
  @IsUUID('all', { each: true })
  tagIds?: string[];
  /** Contact name contains (case-insensitive). */
  @IsOptionalNotNull() @IsString() @MaxLength(200) name?: string;
  /** Contact phone number contains (digits). */
  @IsOptionalNotNull() @PhoneNumberFilterField() phoneNumber?: string;
  /** Last activity at or after (ISO 8601). */
  @IsOptionalNotNull() @IsIsoDateTime() fromDate?: string;
  /** Last activity at or before (ISO 8601). */
  @IsOptionalNotNull() @IsIsoDateTime() toDate?: string;
  /** Last event inbound and unanswered. */
  @IsOptionalNotNull() @Transform(toBoolean) @IsBoolean() isLost?: boolean;
  /** Started from a click-to-WhatsApp ad or post (`true`), or not (`false`). */
  @IsOptionalNotNull() @Transform(toBoolean) @IsBoolean() hasReferral?: boolean;
  /** The conversation's first referral came from this ad or post id. */
  @IsOptionalNotNull() @IsString() @MaxLength(200) referralSourceId?: string;
}

export class CreateConversationDto {
  @IsUUID() channelId: string;
  @PhoneNumberField() phoneNumber: string;
  @IsOptionalNotNull() @IsString() @MaxLength(200) contactName?: string;
  @IsOptionalNotNull() @IsUUID() assignToUserId?: string;
  @IsOptionalNotNull() @IsUUID() assignToAiAgentId?: string;
}

export class AssignConversationDto {
  @IsOptional() @IsUUID() assignedUserId?: string | null;
  @IsOptional() @IsUUID() assignedAiAgentId?: string | null;
}

export class ConversationStatusDto {
  @IntEnumProperty(ConversationStatus, 'ConversationStatus') @Transform(toInt) @IsIntEnum(ConversationStatus) status: ConversationStatus;
}

export class TagConversationDto {
  @IsArray() @ArrayMaxSize(100) @IsUUID('all', { each: true }) tagIds: string[];
}

export class TimelineQueryDto extends SortedPagedRequestDto {}

export class ChannelConversationDto {
  id: string;
  name: string;
  @IntEnumProperty(ChannelType, 'ChannelType') type: ChannelType;
  @ApiProperty({ type: String, nullable: true }) icon: string | null;
  phoneNumber: string;
}

export class ConversationDto {
  id: string;
  @ApiProperty({ type: String, nullable: true }) sentiment: string | null;
  @IntEnumProperty(ConversationStatus, 'ConversationStatus') status: ConversationStatus;
  /** ISO 8601 UTC. */
  lastActivityAt: string;
  contactId: string;
  contactName: string;
  @IntEnumProperty(ContactType, 'ContactType') contactType: ContactType;
  /** The contact's number; null for a WhatsApp user known only by their business-scoped user id. */
  @ApiProperty({ type: String, nullable: true }) phoneNumber: string | null;
  channelId: string;
  @ApiProperty({ type: String, nullable: true }) assigneeId: string | null;
  @ApiProperty({ type: String, nullable: true }) assignedAiAgentId: string | null;
  isAiAssignee: boolean;
  @ApiProperty({ type: String, nullable: true }) assigneeName: string | null;
  @Type(() => ChannelConversationDto) channel: ChannelConversationDto;
  @IntEnumProperty(EventSourceType, 'EventSourceType', { nullable: true })
  lastEventSourceType: EventSourceType | null;
  @IntEnumProperty(EventDirection, 'EventDirection', { nullable: true })
  lastEventDirection: EventDirection | null;
  @ApiProperty({ type: String, nullable: true }) lastEventStatus: string | null;
  @ApiProperty({ type: String, nullable: true }) lastEventPreviewBody: string | null;
  @ApiProperty({ type: String, nullable: true }) lastEventOccurredAt: string | null;
  lastEventsCount: number;
  @ApiProperty({ type: [TagDto] }) tags: TagDto[];
  unreadCount: number;
  /** The click-to-WhatsApp ad or post of the conversation's first referral (API.md §14). */
  @ApiProperty({ type: ReferralDto, nullable: true }) referral: ReferralDto | null;

  /** The conversation with its contact, channel, assignee's name and tags (ConversationViews loads them). */
  static from(
    conversation: Conversation,
    related: { contact: Contact; channel: Channel; assigneeName: string | null; tags: Tag[] },
  ): ConversationDto {
    const { contact, channel } = related;
    return {
      id: conversation.id,
      sentiment: conversation.sentiment,
      status: conversation.status,
      lastActivityAt: TimestampFormat.utc(conversation.lastActivityAt),
      contactId: contact.id,
      contactName: contact.name,
      contactType: contact.contactType,
      phoneNumber: contact.phoneNumber,
      channelId: channel.id,
      assigneeId: conversation.assigneeUserId,
      assignedAiAgentId: conversation.assignedAiAgentId,
      isAiAssignee: conversation.assignedAiAgentId !== null,
      assigneeName: related.assigneeName,
      channel: { id: channel.id, name: channel.name, type: channel.type, icon: channel.icon, phoneNumber: channel.phoneNumber },
      lastEventSourceType: conversation.lastEventSourceType,
      lastEventDirection: conversation.lastEventDirection,
      lastEventStatus: conversation.lastEventStatus,
      lastEventPreviewBody: conversation.lastEventPreviewBody,
      lastEventOccurredAt: formatTimestamp(conversation.lastEventOccurredAt, TimestampFormat.utc),
      lastEventsCount: conversation.lastEventsCount,
      tags: related.tags.map(TagDto.from),
      unreadCount: 0,
      referral: conversation.referral,
    };
  }
}

export class CreateConversationResultDto {
  conversation: ConversationDto;
  contactId: string;

  static from(conversation: ConversationDto): CreateConversationResultDto {
    return { conversation, contactId: conversation.contactId };
  }
}
