import type { ContactDto } from '../contacts/dto/contact.dto.js';
import type { ConversationDto } from '../conversations/dto/conversation.dto.js';
import type { ContactMergedEventData } from './dto/webhook-event-data.dto.js';
import type { WebhookEventType } from './webhook-kind.js';

// What each event a workspace's endpoints take carries (API.md §11.1), by type.

/** What each webhook event type carries as its `data` (API.md §11.1: `{ type, timestamp, workspaceId, data }`). */
export interface WebhookEventData {
  [WebhookEventType.ContactCreated]: ContactDto;
  [WebhookEventType.ContactUpdated]: ContactDto & { changes: ContactChange[] };
  [WebhookEventType.ContactDeleted]: ContactDto;
  [WebhookEventType.ContactMerged]: ContactMergedData;
  [WebhookEventType.ConversationCreated]: ConversationDto;
  [WebhookEventType.ConversationAssigned]: ConversationDto;
  [WebhookEventType.ConversationStatusChanged]: ConversationDto;
  [WebhookEventType.ConversationTagsChanged]: ConversationDto;
  [WebhookEventType.WebhookEndpointDisabled]: WebhookEndpointDisabledData;
  [WebhookEventType.WhatsAppTemplateUpdated]: WhatsAppTemplateUpdatedData;
  [WebhookEventType.ChannelQualityUpdated]: ChannelQualityUpdatedData;
  [WebhookEventType.CallAnalysisCompleted]: CallAnalysisCompletedData;
}

/** `whatsapp.template_updated`: Meta changed a stored template's status, category or quality score. */
export interface WhatsAppTemplateUpdatedData {
  channelId: string;
  name: string;
  language: string;
  status: string;
  previousStatus: string;
  category: string;
  previousCategory: string;
  qualityScore: string | null;
  reason: string | null;
}

/**
 * `channel.quality_updated` (API.md §14): Meta changed a WhatsApp number's quality, throughput or
 * messaging limit (its phone_number_quality_update or account_update webhook); the channel's tiers now.
 */
export interface ChannelQualityUpdatedData {
  channelId: string;
  /** The channel's business portfolio (its messaging limit is shared by the workspace's channels with this id); null when it has none. */
  businessId: string | null;
  /** GREEN, YELLOW, RED or UNKNOWN as Meta last reported it; null until it did. */
  qualityRating: string | null;
  /** Messages a second the governor lets out on the number now. */
  throughputPerSecond: number;
  /** Unique recipients of business-initiated conversations per rolling 24 h now; null: unlimited. */
  messagingLimit: number | null;
  /** Meta's event: FLAGGED, UNFLAGGED, UPGRADE, DOWNGRADE, ONBOARDING, THROUGHPUT_UPGRADE (phone_number_quality_update), or account_update's (ACCOUNT_RESTRICTION, DISABLED_UPDATE …). */
  event: string;
}

/**
 * `call.analysis_completed` (API.md §16): a recorded call's analysis finished (or failed for good)
 * after its Call Webhook had gone without it (the wait, CALL_INTELLIGENCE_WAIT, was over).
 */
export interface CallAnalysisCompletedData {
  outboundIvrRequestId: string;
  callId: string | null;
  channelId: string;
  status: 'Completed' | 'Failed';
  /** Why there is no analysis (the provider's error after the retries); null when Completed. */
  analysisError: string | null;
  transcript: Array<{ speaker: 'Business' | 'Customer'; start: number; end: number; text: string }> | null;
  summary: string | null;
  sentiment: 'Positive' | 'Neutral' | 'Negative' | null;
  evaluationCriteriaResult: Array<{ name: string; passed: boolean; reason: string }> | null;
}

/** One change of `contact.updated`, as the contact's history records it. */
export interface ContactChange {
  propertyName: string;
  oldValue: string | null;
  newValue: string | null;
}

/** `webhook_endpoint.disabled`: the endpoint, why and when. */
export interface WebhookEndpointDisabledData {
  endpointId: string;
  url: string;
  disabledReason: string;
  /** ISO 8601 UTC. */
  disabledAt: string;
  /** ISO 8601 UTC: the first failed attempt since the last successful one. */
  failingSince: string | null;
}

/** An event as written to the outbox, whole. */
export interface WebhookEventEnvelope<T extends WebhookEventType = WebhookEventType> {
  type: T;
  /** ISO 8601 UTC. */
  timestamp: string;
  workspaceId: string;
  data: WebhookEventData[T];
}

/**
 * `contact.merged`: two contacts turned out to be one WhatsApp user (a number and a BSUID that a
 * message named together), and `mergedContactId` was merged into `contactId`, which stays.
 */
export type ContactMergedData = ContactMergedEventData;
