/**
 * Inbound WhatsApp messages in provider-neutral form: what the Cloud API webhook parser and the
 * sandbox injection produce, and what the worker records. Jobs in Redis and the outbox carry this
 * shape (JobPayloads), so fields are only ever added, and every new one is optional.
 */

import type { ReferralInfo, ReferredProductInfo } from '../../conversations/message-details.js';

/** The kinds of message a customer sends (`type` of the Cloud API `messages` webhook, folded). */
export const INBOUND_KINDS = [
  'text',
  'image',
  'video',
  'audio',
  'document',
  'sticker',
  'location',
  'contacts',
  'button',
  'interactive',
  'reaction',
  'unsupported',
] as const;
export type InboundKind = (typeof INBOUND_KINDS)[number];

/** The kinds whose message carries a file. */
export const MEDIA_KINDS = ['image', 'video', 'audio', 'document', 'sticker'] as const;
export type MediaKind = (typeof MEDIA_KINDS)[number];

export function isMediaKind(kind: string): kind is MediaKind {
  return (MEDIA_KINDS as readonly string[]).includes(kind);
}

/** `messageType` of the WhatsApp Message Webhook and of the timeline event's attachment (API.md §7.1). */
export type WhatsAppMessageType =
  | 'Text'
  | 'Image'
  | 'Video'
  | 'Audio'
  | 'Document'
  | 'Location'
  | 'Contact'
  | 'Sticker'
  | 'Template'
  | 'Interactive'
  | 'Reaction'
  | 'Unsupported';

const MESSAGE_TYPE: Record<InboundKind, WhatsAppMessageType> = {
  text: 'Text',
  image: 'Image',
  video: 'Video',
  audio: 'Audio',
  document: 'Document',
  sticker: 'Sticker',
  location: 'Location',
  contacts: 'Contact',
  button: 'Interactive',
  interactive: 'Interactive',
  reaction: 'Reaction',
  unsupported: 'Unsupported',
};

/** The webhook's `messageType` of an inbound kind; a kind this version does not know is Unsupported. */
export function messageTypeOf(kind: string): WhatsAppMessageType {
  return MESSAGE_TYPE[kind as InboundKind] ?? 'Unsupported';
}

/** A message's file: still at the provider (`providerMediaId`) or already stored (`mediaFileId`, sandbox injection). */
export interface InboundMedia {
  /** The Cloud API media id: the worker fetches `GET /{media-id}`, then its `url`. */
  providerMediaId?: string;
  /** A `media_files` id of the workspace (an upload), used as is. */
  mediaFileId?: string;
  mimeType?: string | null;
  /** The provider's SHA-256 of the file (hex or base64, as Meta sends it). */
  sha256?: string | null;
  /** Documents: the name the sender gave the file. */
  fileName?: string | null;
  caption?: string | null;
  /** Audio: a voice note recorded in WhatsApp. */
  voice?: boolean;
  /** Stickers: animated. */
  animated?: boolean;
}

export interface InboundLocation {
  latitude: number;
  longitude: number;
  name: string | null;
  address: string | null;
  url: string | null;
}

/** One shared contact card, structured (Meta's `contacts[]` of a contacts message, in camelCase). */
export interface SharedContact {
  name: {
    formattedName: string;
    firstName: string | null;
    lastName: string | null;
    middleName: string | null;
    prefix: string | null;
    suffix: string | null;
  };
  phones: Array<{ phone: string | null; waId: string | null; type: string | null }>;
  emails: Array<{ email: string | null; type: string | null }>;
  org: { company: string | null; department: string | null; title: string | null } | null;
  addresses: Array<{
    street: string | null;
    city: string | null;
    state: string | null;
    zip: string | null;
    country: string | null;
    countryCode: string | null;
    type: string | null;
  }>;
  urls: Array<{ url: string | null; type: string | null }>;
  birthday: string | null;
}

/** Who sent a message: a phone number, a business-scoped user id (BSUID), or both; and what their profile says. */
export interface InboundSender {
  /** E.164, when the provider shares the number. */
  fromNumber?: string | null;
  /** The BSUID (`CC.digits`). */
  fromUserId?: string | null;
  fromParentUserId?: string | null;
  username?: string | null;
  /** `contacts[].profile.name`. */
  profileName?: string | null;
}

export interface InboundMessage extends InboundSender {
  providerMessageId: string;
  /** One of {@link InboundKind}; older jobs carry only text, button and interactive. */
  type: InboundKind;
  /** Text body; a quick reply's or interactive reply's title; a flow reply's body. */
  text?: string;
  /** Quick-reply payload, interactive reply id, or a flow reply's `response_json`. */
  payload?: string;
  /** Provider message id of the message this one answers. */
  replyToMessageId?: string;
  receivedAt: string;
  media?: InboundMedia;
  location?: InboundLocation;
  contacts?: SharedContact[];
  /** `emoji` is "" when the reaction is removed. `messageId` is the provider id of the message reacted to. */
  reaction?: { messageId: string; emoji: string };
  /** Unsupported kinds: the provider's message as it came. */
  raw?: Record<string, unknown>;
  /** The click-to-WhatsApp ad or post the customer came from. */
  referral?: ReferralInfo;
  /** The user's answer to this number's call permission request (API.md §15); `expiresAt` ISO, null when permanent or declined. */
  callPermissionReply?: { granted: boolean; permanent: boolean; expiresAt: string | null };
  /** The catalog product the customer asks about. */
  referredProduct?: ReferredProductInfo;
  forwarded?: boolean;
  /** Forwarded many times (WhatsApp's double arrow). */
  frequentlyForwarded?: boolean;
  /**
   * A message the business wrote in the WhatsApp Business app on a number it shares with the API
   * (Meta's `smb_message_echoes`): recorded as an outbound event (source BusinessApp), never sent.
   * The sender fields then name the customer it went to.
   */
  businessAppEcho?: true;
}

/**
 * A change of a user's identifiers the provider reports (`user_id_update`, or a system message
 * `user_changed_user_id` / `user_changed_number`): the contact known by the previous ids takes the new ones.
 */
export interface IdentityUpdate {
  /** The ids the contact is known by now. */
  previousUserId: string | null;
  previousNumber: string | null;
  /** The new ones (null: unchanged or not told). */
  userId: string | null;
  parentUserId: string | null;
  phoneNumber: string | null;
}

export { isWhatsAppUserId as isBsuid } from '../../common/phone/whatsapp-user-id.js';
