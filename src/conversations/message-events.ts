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
