import type { ConversationEvent } from './conversation-event.entity.js';
import type { MessageSource } from './message-details.js';

// The shapes other features exchange with the timeline's message events (through MessageEvents).

/** An outbound event as a status move returns it (its row, snake_case). */
export interface MovedEvent {
  id: string;
  workspace_id: string;
  conversation_id: string;
  contact_id: string;
  source_id: string | null;
  body: string | null;
  attachment: Record<string, unknown> | null;
  creation_time: Date;
  is_billable: boolean | null;
  /** What the message costs, as Meta's status `pricing` said (null until a status carried it). */
  pricing: MessagePricing | null;
  /** `BusinessApp` for a message sent from the WhatsApp Business app; null for ours. */
  source: MessageSource | null;
}

/** An inbound event whose file `MessageEvents.settleMedia` settled (its row, snake_case). */
export interface SettledMediaEvent {
  id: string;
  conversation_id: string;
  contact_id: string;
  channel_id: string;
  source_id: string | null;
  body: string | null;
  attachment: Record<string, unknown>;
  creation_time: Date;
}

/** What an edit or a deletion changes of a message. */
export type MessageContentPatch = Partial<
  Pick<ConversationEvent, 'body' | 'attachment' | 'location' | 'durationOrSize' | 'editHistory' | 'revokedAt'>
>;

/** A timeline event as `MessageEvents.findMessageRef` reads it. */
export type MessageRef = Pick<ConversationEvent, 'id' | 'channelId' | 'contactId' | 'sourceType' | 'direction' | 'sourceId' | 'attachment'>;

/** Which outbound event: ours by id, or the WhatsApp provider's message id on a channel. */
export type OutboundEventRef = { eventId: string } | { channelId: string; providerMessageId: string };

/** A status an outbound event moves to; `providerMessageId` is kept when the event has none yet. */
export interface StatusMove {
  status: string;
  providerMessageId: string | null;
  errorCode: string | null;
  failureReason: string | null;
  /** Whether the provider charges for the message, when the status says (kept when null). */
  isBillable?: boolean | null;
}

/** Meta's `pricing` of a sent message, in our words: `model` (PMP, or CBP before July 2025), `type`, `category`. */
export interface MessagePricing {
  /** `PMP` (per-message pricing) or `CBP` (the per-conversation pricing before July 2025). */
  model: string | null;
  /** `regular` (charged), `free_customer_service` or `free_entry_point`; null under CBP. */
  type: string | null;
  /** marketing, marketing_lite, utility, authentication, authentication_international, service, referral_conversion … */
  category: string | null;
  /** Whether Meta charges for it (from `type`, or CBP's `billable`). */
  billable: boolean;
}

/** A message whose pricing was just recorded (the first status that carried one). */
export interface PricedEvent {
  id: string;
  channel_id: string;
  attachment: Record<string, unknown> | null;
  pricing: MessagePricing;
}
