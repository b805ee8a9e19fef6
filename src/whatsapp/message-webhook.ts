import { TimestampFormat } from '../common/time/timestamp-format.js';
import type { ConversationEvent } from '../conversations/conversation-event.entity.js';
import { EventDirection } from '../conversations/conversation-enums.js';
import { messageDetailsView, type MessageDetailsView, type ReplyInfo } from '../conversations/message-details.js';
import type { MessagePricing } from '../conversations/message-events.js';
import type { SharedContact, WhatsAppMessageType } from './inbound/inbound-message.js';

/** What happened to the message this webhook is about (API.md §14). */
export type MessageWebhookAction = 'Created' | 'Edited' | 'Revoked' | 'StatusChanged';

/**
 * The WhatsApp Message Webhook (API.md §11, `whatsapp.message`), sent on every inbound message and
 * outbound status change, with a message's details of 2026 ({@link MessageDetailsView}: referral,
 * referred product, forwarding, edit history, deletion, source).
 */
export interface WhatsAppMessageWebhookPayload extends MessageDetailsView {
  workspaceId: string;
  channelId: string;
  conversationId: string;
  contactId: string;
  /** The provider's message id when there is one (Meta's wamid), else {@link eventId}. */
  messageId: string;
  /** Our conversation event id of the message: every operation that takes a message accepts it. */
  eventId: string;
  /** The provider's message id (Meta's wamid); null while the message has none. */
  providerMessageId: string | null;
  action: MessageWebhookAction;
  direction: 'Inbound' | 'Outbound';
  messageType: WhatsAppMessageType | string;
  body: string | null;
  mediaUrl: string | null;
  mimeType: string | null;
  status: string | null;
  senderUserId: string | null;
  latitude: number | null;
  longitude: number | null;
  creationTime: string;
  isBillable: boolean;
  /** Outbound: Meta's pricing of the message (null until a status carried it). */
  pricing: { model: string | null; type: string | null; category: string | null } | null;
  errorCode: string | null;
  errorReason: string | null;
  buttonPayload: string | null;
  buttonText: string | null;
  /** Reactions: our conversation event id of the message reacted to (null when we never stored it). */
  reactedMessageId: string | null;
  /** Reactions: the provider's id of the message reacted to. */
  reactedProviderMessageId: string | null;
  /** Replies: the quoted message, by our id and the provider's. */
  replyTo: Required<ReplyInfo> | null;
  fileName: string | null;
  size: number | null;
  whatsAppUserId: string | null;
  whatsAppUsername: string | null;
  profileName: string | null;
  /** Contact messages: the shared cards, structured. */
  contacts: SharedContact[] | null;
}

type Given = Pick<
  WhatsAppMessageWebhookPayload,
  | 'workspaceId'
  | 'channelId'
  | 'conversationId'
  | 'contactId'
  | 'eventId'
  | 'providerMessageId'
  | 'action'
  | 'direction'
  | 'messageType'
  | 'creationTime'
>;

/** A complete payload: every field the caller does not give is null (isBillable false), as API.md §1 wants absent values. */
export function messageWebhookPayload(fields: Given & Partial<WhatsAppMessageWebhookPayload>): WhatsAppMessageWebhookPayload {
  return {
    messageId: fields.providerMessageId ?? fields.eventId,
    body: null,
    mediaUrl: null,
    mimeType: null,
    status: null,
    senderUserId: null,
    latitude: null,
    longitude: null,
    isBillable: false,
    pricing: null,
    errorCode: null,
    errorReason: null,
    buttonPayload: null,
    buttonText: null,
    reactedMessageId: null,
    reactedProviderMessageId: null,
    replyTo: null,
    referral: null,
    referredProduct: null,
    forwarded: false,
    frequentlyForwarded: false,
    editHistory: null,
    revokedAt: null,
    source: fields.direction === 'Outbound' ? 'Api' : null,
    fileName: null,
    size: null,
    whatsAppUserId: null,
    whatsAppUsername: null,
    profileName: null,
    contacts: null,
    ...fields,
  };
}

/** The webhook of a recorded WhatsApp message as it stands now (after an edit or a deletion, say). */
export function eventWebhookPayload(event: ConversationEvent, action: MessageWebhookAction): WhatsAppMessageWebhookPayload {
  const attachment = event.attachment ?? {};
  const field = (name: string) => (typeof attachment[name] === 'string' ? attachment[name] : null);
  const outbound = event.direction === EventDirection.Outbound;
  return messageWebhookPayload({
    workspaceId: event.workspaceId,
    channelId: event.channelId,
    conversationId: event.conversationId,
    contactId: event.contactId,
    eventId: event.id,
    providerMessageId: event.sourceId,
    action,
    direction: outbound ? 'Outbound' : 'Inbound',
    messageType: field('messageType') ?? 'Unsupported',
    body: event.body,
    mediaUrl: field('mediaUrl'),
    mimeType: field('mimeType'),
    fileName: field('fileName'),
    status: outbound ? event.status : null,
    latitude: event.location?.latitude ?? null,
    longitude: event.location?.longitude ?? null,
    creationTime: TimestampFormat.utc(event.creationTime),
    isBillable: event.isBillable ?? false,
    pricing: pricingView(event.pricing),
    replyTo: event.replyTo && { repliedToProviderMessageId: null, ...event.replyTo },
    ...messageDetailsView(event, outbound),
  });
}

/** The webhook's `pricing` of a stored one: model, type and category. */
export function pricingView(pricing: MessagePricing | null): WhatsAppMessageWebhookPayload['pricing'] {
  return pricing ? { model: pricing.model, type: pricing.type, category: pricing.category } : null;
}
