import { CriterionResultDto, TranscriptSegmentDto } from '../../call-intelligence/dto/call-analysis.dto.js';
import { ApiProperty } from '@nestjs/swagger';
import { ContactDto } from '../../contacts/dto/contact.dto.js';
import { EditedVersionDto, ReferralDto, ReferredProductDto, ReplyToDto } from '../../conversations/dto/message-details.dto.js';
import { MESSAGE_SOURCES, type MessageSource } from '../../conversations/message-details.js';
import type { WhatsAppMessageWebhookPayload } from '../../whatsapp/message-webhook.js';
import type {
  CallAnalysisCompletedData,
  ChannelQualityUpdatedData,
  ContactChange,
  WebhookEndpointDisabledData,
  WhatsAppTemplateUpdatedData,
} from '../webhook-events.js';

/** The schemas of the events' `data` (API.md §11.1) that have no response DTO of their own. */

export class ContactChangeDto implements ContactChange {
  propertyName: string;
  @ApiProperty({ type: String, nullable: true }) oldValue: string | null;
  @ApiProperty({ type: String, nullable: true }) newValue: string | null;
}

/** `contact.updated`: the contact as it is now, and what changed, as its history records it. */
export class ContactUpdatedEventData extends ContactDto {
  @ApiProperty({ type: [ContactChangeDto] }) changes: ContactChangeDto[];
}

export class ContactMergeReasonDto {
  @ApiProperty({ enum: ['WhatsAppIdentity'] }) kind: 'WhatsAppIdentity';
  @ApiProperty({ type: String, nullable: true }) providerMessageId: string | null;
}

export class ContactMergeMovedDto {
  @ApiProperty({ type: [String] }) conversationIds: string[];
  events: number;
  properties: number;
  notes: number;
  historyEntries: number;
}

/** `contact.merged`: `mergedContactId` was merged into `contactId`, which stays. */
export class ContactMergedEventData {
  contactId: string;
  name: string;
  @ApiProperty({ type: String, nullable: true }) phoneNumber: string | null;
  @ApiProperty({ type: String, nullable: true }) whatsAppUserId: string | null;
  mergedContactId: string;
  mergedContactName: string;
  reason: ContactMergeReasonDto;
  moved: ContactMergeMovedDto;
}

export class WebhookEndpointDisabledEventData implements WebhookEndpointDisabledData {
  endpointId: string;
  url: string;
  disabledReason: string;
  /** ISO 8601 UTC. */
  disabledAt: string;
  @ApiProperty({ type: String, nullable: true, description: 'ISO 8601 UTC: the first failed attempt since the last successful one.' })
  failingSince: string | null;
}

/** `whatsapp.template_updated`: Meta changed a stored template's status, category or quality score. */
export class WhatsAppTemplateUpdatedEventData implements WhatsAppTemplateUpdatedData {
  @ApiProperty({ format: 'uuid', example: '3f1c2a9e-8b7d-4c61-9e2f-5a4b3c2d1e0f' }) channelId: string;
  @ApiProperty({ example: 'spring_sale' }) name: string;
  @ApiProperty({ example: 'en' }) language: string;
  @ApiProperty({
    example: 'PAUSED',
    description:
      "Meta's status now: APPROVED, PENDING, REJECTED, PAUSED, DISABLED, FLAGGED, ARCHIVED, … (REINSTATED is stored as Meta sends it).",
  })
  status: string;
  @ApiProperty({ example: 'APPROVED' }) previousStatus: string;
  @ApiProperty({ example: 'MARKETING', description: 'MARKETING, UTILITY or AUTHENTICATION: what sends are checked and billed as.' })
  category: string;
  @ApiProperty({ example: 'UTILITY' }) previousCategory: string;
  @ApiProperty({ type: String, nullable: true, example: 'RED', description: 'GREEN, YELLOW, RED or UNKNOWN; null until Meta rates it.' })
  qualityScore: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'Paused for low quality: the template got negative feedback.' })
  reason: string | null;
}

/** `channel.quality_updated`: Meta changed the number's quality, throughput or messaging limit (API.md §14). */
export class ChannelQualityUpdatedEventData implements ChannelQualityUpdatedData {
  @ApiProperty({ format: 'uuid' }) channelId: string;
  @ApiProperty({
    type: String,
    nullable: true,
    example: '1029384756102938',
    description: "The channel's business portfolio; null when it has none.",
  })
  businessId: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'RED',
    description: 'GREEN, YELLOW, RED or UNKNOWN as Meta last reported it; null until it did.',
  })
  qualityRating: string | null;
  @ApiProperty({ example: 80, description: 'Messages a second the send governor lets out on the number now.' })
  throughputPerSecond: number;
  @ApiProperty({
    type: Number,
    nullable: true,
    example: 2000,
    description:
      'Unique recipients of business-initiated conversations per rolling 24 h now (shared by the business portfolio); null: unlimited.',
  })
  messagingLimit: number | null;
  @ApiProperty({
    example: 'UPGRADE',
    description:
      "Meta's event: FLAGGED, UNFLAGGED, UPGRADE, DOWNGRADE, ONBOARDING or THROUGHPUT_UPGRADE (phone_number_quality_update); ACCOUNT_RESTRICTION or DISABLED_UPDATE (account_update).",
  })
  event: string;
}

/** `call.analysis_completed`: a recorded call's analysis, after its Call Webhook went without it (API.md §16). */
export class CallAnalysisCompletedEventData implements CallAnalysisCompletedData {
  @ApiProperty({ format: 'uuid' }) outboundIvrRequestId: string;
  @ApiProperty({ type: String, nullable: true }) callId: string | null;
  @ApiProperty({ format: 'uuid' }) channelId: string;
  @ApiProperty({ enum: ['Completed', 'Failed'] }) status: 'Completed' | 'Failed';
  @ApiProperty({ type: String, nullable: true, description: "Why there is no analysis (the provider's error after the retries)." })
  analysisError: string | null;
  @ApiProperty({ type: [TranscriptSegmentDto], nullable: true }) transcript: TranscriptSegmentDto[] | null;
  @ApiProperty({ type: String, nullable: true }) summary: string | null;
  @ApiProperty({ enum: ['Positive', 'Neutral', 'Negative'], nullable: true }) sentiment: 'Positive' | 'Neutral' | 'Negative' | null;
  @ApiProperty({ type: [CriterionResultDto], nullable: true }) evaluationCriteriaResult: CriterionResultDto[] | null;
}

/** `call`: the Call Webhook of API.md §11. */
export class CallWebhookPayload {
  callId: string;
  workspaceId: string;
  channelId: string;
  @ApiProperty({
    description: '0 Active, 1 Completed, 2 Missed, 3 RejectedByCaller, 4 RejectedByCallee, 5 NoAnswer, 6 Cancelled, 7 Failed',
  })
  status: number;
  @ApiProperty({ description: '1 Inbound, 2 Outbound' }) type: number;
  @ApiProperty({
    enum: ['Phone', 'WhatsApp'],
    description:
      "The network that carried the call: a phone line, or a WhatsApp call (API.md §15: the WhatsApp user is `calleeNumber` of an outbound call, `callerNumber` of an inbound one, answered by the channel's inbound or after-hours flow).",
  })
  channelKind: 'Phone' | 'WhatsApp';
  callerNumber: string;
  calleeNumber: string;
  @ApiProperty({ type: String, nullable: true }) pickupTime: string | null;
  hangupTime: string;
  @ApiProperty({ type: String, nullable: true }) userId: string | null;
  @ApiProperty({ type: String, nullable: true }) userName: string | null;
  @ApiProperty({ type: String, nullable: true }) contactId: string | null;
  contactNumber: string;
  /** hh:mm:ss */
  callLength: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      "Outbound calls with machine detection: who answered, as Twilio's AnsweredBy says (human, machine_start, machine_end_beep, machine_end_silence, machine_end_other, fax, unknown); null otherwise.",
  })
  answeredBy: string | null;
  @ApiProperty({ type: String, nullable: true }) aiAgentId: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'Recorded outbound calls (API.md §16): the stored recording, an absolute unguessable URL served without a token (a two-channel WAV); null when not recorded or when the recording did not arrive within CALL_INTELLIGENCE_WAIT.',
  })
  recordingUrl: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'Recorded calls of a workspace with a transcription provider (API.md §16): the transcript, a line a segment (`[m:ss] Business|Customer: words`); null until analysed within CALL_INTELLIGENCE_WAIT (later: `call.analysis_completed`).',
  })
  transcription: string | null;
  @ApiProperty({ type: String, nullable: true, description: "The language model's summary of the call (a summary provider set)." })
  summary: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Positive, Neutral or Negative.' }) sentiment: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The evaluation criteria judged, as JSON text: `[{ "name", "passed", "reason" }]`.',
  })
  evaluationCriteriaResult: string | null;
  creationTime: string;
}

/** Meta's `pricing` of a sent message (per-message pricing since July 2025). */
export class MessagePricingDto {
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'PMP',
    description: '`PMP` (per message) or `CBP` (per conversation, before July 2025).',
  })
  model: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'regular',
    description: '`regular` (charged), `free_customer_service` or `free_entry_point`; null under CBP.',
  })
  type: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    example: 'marketing',
    description: 'marketing, marketing_lite, utility, authentication, authentication_international, service, referral_conversion.',
  })
  category: string | null;
}

/** `whatsapp.message`: the WhatsApp Message Webhook of API.md §11. */
export class WhatsAppMessageWebhook implements Omit<WhatsAppMessageWebhookPayload, 'contacts'> {
  workspaceId: string;
  channelId: string;
  conversationId: string;
  contactId: string;
  @ApiProperty({ description: 'The provider’s message id (Meta’s wamid) when there is one, else `eventId`.' }) messageId: string;
  @ApiProperty({
    description: 'Our conversation event id of the message; every operation that takes a message accepts it, or the provider’s id.',
  })
  eventId: string;
  @ApiProperty({ type: String, nullable: true, description: 'The provider’s message id (Meta’s wamid); null while it has none.' })
  providerMessageId: string | null;
  @ApiProperty({
    enum: ['Created', 'Edited', 'Revoked', 'StatusChanged'],
    description: 'A new message, an edit or deletion of an earlier one (the webhook describes that message), or a status change.',
  })
  action: 'Created' | 'Edited' | 'Revoked' | 'StatusChanged';
  @ApiProperty({ enum: ['Inbound', 'Outbound'] }) direction: 'Inbound' | 'Outbound';
  messageType: string;
  @ApiProperty({ type: String, nullable: true }) body: string | null;
  @ApiProperty({ type: String, nullable: true }) mediaUrl: string | null;
  @ApiProperty({ type: String, nullable: true }) mimeType: string | null;
  @ApiProperty({ type: String, nullable: true }) status: string | null;
  @ApiProperty({ type: String, nullable: true }) senderUserId: string | null;
  @ApiProperty({ type: Number, nullable: true }) latitude: number | null;
  @ApiProperty({ type: Number, nullable: true }) longitude: number | null;
  creationTime: string;
  isBillable: boolean;
  @ApiProperty({
    type: () => MessagePricingDto,
    nullable: true,
    description: 'Outbound: what Meta’s status `pricing` said the message costs (null until a status carried it).',
  })
  pricing: MessagePricingDto | null;
  @ApiProperty({ type: String, nullable: true }) errorCode: string | null;
  @ApiProperty({ type: String, nullable: true }) errorReason: string | null;
  @ApiProperty({ type: String, nullable: true }) buttonPayload: string | null;
  @ApiProperty({ type: String, nullable: true }) buttonText: string | null;
  @ApiProperty({ type: String, nullable: true }) reactedMessageId: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Reactions: the provider’s id of the message reacted to.' })
  reactedProviderMessageId: string | null;
  @ApiProperty({ type: ReplyToDto, nullable: true }) replyTo: ReplyToDto | null;
  @ApiProperty({ type: ReferralDto, nullable: true }) referral: ReferralDto | null;
  @ApiProperty({ type: ReferredProductDto, nullable: true }) referredProduct: ReferredProductDto | null;
  forwarded: boolean;
  frequentlyForwarded: boolean;
  @ApiProperty({ type: [EditedVersionDto], nullable: true }) editHistory: EditedVersionDto[] | null;
  @ApiProperty({ type: String, nullable: true, description: 'ISO 8601 UTC: when the sender deleted it.' }) revokedAt: string | null;
  @ApiProperty({
    enum: MESSAGE_SOURCES,
    nullable: true,
    description: 'Outbound: `BusinessApp` for a message sent from the WhatsApp Business app.',
  })
  source: MessageSource | null;
  @ApiProperty({ type: String, nullable: true }) fileName: string | null;
  @ApiProperty({ type: Number, nullable: true }) size: number | null;
  @ApiProperty({ type: String, nullable: true }) whatsAppUserId: string | null;
  @ApiProperty({ type: String, nullable: true }) whatsAppUsername: string | null;
  @ApiProperty({ type: String, nullable: true }) profileName: string | null;
  @ApiProperty({ type: 'array', items: { type: 'object', additionalProperties: true }, nullable: true })
  contacts: Array<Record<string, unknown>> | null;
}
