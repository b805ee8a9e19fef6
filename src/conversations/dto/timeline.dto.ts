import { ApiProperty } from '@nestjs/swagger';
import { MESSAGE_SOURCES, messageDetailsView, type MessageSource } from '../message-details.js';
import { EditedVersionDto, ReferralDto, ReferredProductDto } from './message-details.dto.js';
import { formatTimestamp, TimestampFormat } from '../../common/time/timestamp-format.js';
import { IntEnumProperty } from '../../openapi/int-enum.js';
import type { ConversationEvent } from '../conversation-event.entity.js';
import { EventDirection, EventSourceType } from '../conversation.entity.js';

export class AiSummaryDto {
  @ApiProperty({ type: String, nullable: true }) summary: string | null;
  @ApiProperty({ type: String, nullable: true }) transcription: string | null;
}

export class ReplyInfoDto {
  @ApiProperty({ type: String, nullable: true }) repliedToEventId: string | null;
  @ApiProperty({ type: String, nullable: true }) repliedToBody: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The provider’s id of the quoted message, kept even when we never stored it.' })
  repliedToProviderMessageId: string | null;
}

export class InternalThreadDto {
  id: string;
  isResolved: boolean;
  messageCount: number;
}

export class LocationMessageDto {
  latitude: number;
  longitude: number;
  @ApiProperty({ type: String, nullable: true }) name: string | null;
  @ApiProperty({ type: String, nullable: true }) address: string | null;
}

export class AssignationInfoDto {
  @ApiProperty({ type: String, nullable: true }) assignedUserId: string | null;
  @ApiProperty({ type: String, nullable: true }) assignedUserName: string | null;
  @ApiProperty({ type: String, nullable: true }) assignedAiAgentId: string | null;
  @ApiProperty({ type: String, nullable: true }) assignedAiAgentName: string | null;
  @ApiProperty({ type: String, nullable: true }) assignedByUserId: string | null;
  @ApiProperty({ type: String, nullable: true }) assignedByUserName: string | null;
}

export class ConversationTimelineDto {
  eventId: string;
  conversationId: string;
  contactId: string;
  channelId: string;
  @IntEnumProperty(EventSourceType, 'EventSourceType')
  sourceType: EventSourceType;
  @ApiProperty({ type: String, nullable: true }) sourceId: string | null;
  @IntEnumProperty(EventDirection, 'EventDirection')
  direction: EventDirection;
  /** ISO 8601 UTC. */
  creationTime: string;
  @ApiProperty({ type: String, nullable: true }) status: string | null;
  @ApiProperty({ type: String, nullable: true }) errorCode: string | null;
  @ApiProperty({ type: String, nullable: true }) failureReason: string | null;
  isAi: boolean;
  @ApiProperty({ type: Object, nullable: true, additionalProperties: true }) attachment: Record<string, unknown> | null;
  @ApiProperty({ type: String, nullable: true }) ownerUserId: string | null;
  @ApiProperty({ type: String, nullable: true }) aiAgentId: string | null;
  /** `hh:mm:ss` for calls. */
  @ApiProperty({ type: String, nullable: true }) durationOrSize: string | null;
  @ApiProperty({ type: String, nullable: true }) ringingDuration: string | null;
  @ApiProperty({ type: String, nullable: true }) body: string | null;
  @ApiProperty({ type: String, nullable: true }) handlerName: string | null;
  @ApiProperty({ type: AiSummaryDto, nullable: true }) aiSummary: AiSummaryDto | null;
  @ApiProperty({ type: ReplyInfoDto, nullable: true }) replyTo: ReplyInfoDto | null;
  @ApiProperty({ type: InternalThreadDto, nullable: true }) internalThread: InternalThreadDto | null;
  @ApiProperty({ type: LocationMessageDto, nullable: true }) location: LocationMessageDto | null;
  @ApiProperty({ type: AssignationInfoDto, nullable: true }) assignation: AssignationInfoDto | null;
  /** WhatsApp: the click-to-WhatsApp ad or post the message came from. */
  @ApiProperty({ type: ReferralDto, nullable: true }) referral: ReferralDto | null;
  @ApiProperty({ type: ReferredProductDto, nullable: true }) referredProduct: ReferredProductDto | null;
  forwarded: boolean;
  frequentlyForwarded: boolean;
  /** An edited message's earlier bodies, oldest first. */
  @ApiProperty({ type: [EditedVersionDto], nullable: true }) editHistory: EditedVersionDto[] | null;
  /** ISO 8601 UTC: when the sender deleted the message (body and file are gone). */
  @ApiProperty({ type: String, nullable: true }) revokedAt: string | null;
  /** Outbound WhatsApp: `BusinessApp` for a message sent from the WhatsApp Business app, `Api` for ours. */
  @ApiProperty({ enum: MESSAGE_SOURCES, nullable: true }) source: MessageSource | null;

  static from(event: ConversationEvent): ConversationTimelineDto {
    return {
      eventId: event.id,
      conversationId: event.conversationId,
      contactId: event.contactId,
      channelId: event.channelId,
      sourceType: event.sourceType,
      sourceId: event.sourceId,
      direction: event.direction,
      creationTime: formatTimestamp(event.creationTime, TimestampFormat.utc)!,
      status: event.status,
      errorCode: event.errorCode,
      failureReason: event.failureReason,
      isAi: event.isAi,
      attachment: event.attachment,
      ownerUserId: event.ownerUserId,
      aiAgentId: event.aiAgentId,
      durationOrSize: event.durationOrSize,
      ringingDuration: event.ringingDuration,
      body: event.body,
      handlerName: event.handlerName,
      aiSummary: event.aiSummary,
      replyTo: event.replyTo && { repliedToProviderMessageId: null, ...event.replyTo },
      internalThread: event.internalThread,
      location: event.location,
      assignation: event.assignation,
      ...messageDetailsView(event, event.sourceType === EventSourceType.WhatsApp && event.direction === EventDirection.Outbound),
    };
  }
}
