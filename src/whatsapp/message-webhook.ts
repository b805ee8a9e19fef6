import type { SharedContact, WhatsAppMessageType } from './inbound-message.js';

/** The WhatsApp Message Webhook (API.md §11, `whatsapp.message`), sent on every inbound message and outbound status change. */
export interface WhatsAppMessageWebhookPayload {
  workspaceId: string;
  channelId: string;
  conversationId: string;
  contactId: string;
  messageId: string;
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
  errorCode: string | null;
  errorReason: string | null;
  buttonPayload: string | null;
  buttonText: string | null;
  /** Reactions: our conversation event id of the message reacted to. */
  reactedMessageId: string | null;
  fileName: string | null;
  size: number | null;
  whatsAppUserId: string | null;
  whatsAppUsername: string | null;
  profileName: string | null;
  /** Contact messages: the shared cards, structured. */
  contacts: SharedContact[] | null;
}

type Required = Pick<
  WhatsAppMessageWebhookPayload,
  'workspaceId' | 'channelId' | 'conversationId' | 'contactId' | 'messageId' | 'direction' | 'messageType' | 'creationTime'
>;

/** A complete payload: every field the caller does not give is null (isBillable false), as API.md §1 wants absent values. */
export function messageWebhookPayload(fields: Required & Partial<WhatsAppMessageWebhookPayload>): WhatsAppMessageWebhookPayload {
  return {
    body: null,
    mediaUrl: null,
    mimeType: null,
    status: null,
    senderUserId: null,
    latitude: null,
    longitude: null,
    isBillable: false,
    errorCode: null,
    errorReason: null,
    buttonPayload: null,
    buttonText: null,
    reactedMessageId: null,
    fileName: null,
    size: null,
    whatsAppUserId: null,
    whatsAppUsername: null,
    profileName: null,
    contacts: null,
    ...fields,
  };
}
