import type { LocationInfo } from '../../conversations/conversation-event.entity.js';
import type { StoredMedia } from '../../storage/media-storage.js';
import {
  INBOUND_KINDS,
  isMediaKind,
  messageTypeOf,
  type InboundKind,
  type InboundMessage,
  type WhatsAppMessageType,
} from './inbound-message.js';
import type { WhatsAppMessageWebhookPayload } from '../message-webhook.js';

/** What an inbound message becomes: the timeline event's body, attachment and location, and the webhook's type-specific fields. */
export interface InboundContent {
  kind: InboundKind;
  messageType: WhatsAppMessageType;
  body: string;
  attachment: Record<string, unknown>;
  location: LocationInfo | null;
  durationOrSize: string | null;
  webhook: Partial<WhatsAppMessageWebhookPayload>;
  /** The file is still at the provider: the worker fetches it, and the webhook waits for it. */
  pendingMedia: boolean;
}

/** The message's kind; an unknown one (a newer job, a hand-made injection) is unsupported. */
export function kindOf(message: InboundMessage): InboundKind {
  return (INBOUND_KINDS as readonly string[]).includes(message.type) ? message.type : 'unsupported';
}

/**
 * Maps an inbound message to what is recorded and sent (API.md §7.1). `stored` is the file of a
 * message that came with one already stored (sandbox injection); `reactedEventId` is our event of
 * the message a reaction is about, when we have it.
 */
export function inboundContent(message: InboundMessage, stored: StoredMedia | null, reactedEventId: string | null): InboundContent {
  const kind = kindOf(message);
  const messageType = messageTypeOf(kind);
  const plain = (body: string, attachment: Record<string, unknown> = {}, webhook: Partial<WhatsAppMessageWebhookPayload> = {}) => ({
    kind,
    messageType,
    body,
    attachment: { messageType, ...attachment },
    location: null,
    durationOrSize: null,
    webhook: { body, ...webhook },
    pendingMedia: false,
  });

  if (isMediaKind(kind)) {
    const media = message.media ?? {};
    const caption = media.caption ?? null;
    const body = caption ?? (kind === 'document' ? (media.fileName ?? '') : '');
    const pending = !stored && !!media.providerMediaId;
    const fileName = media.fileName ?? stored?.fileName ?? null;
    const attachment = {
      messageType,
      mediaStatus: stored ? 'Stored' : pending ? 'Pending' : 'Failed',
      mediaUrl: stored?.url ?? null,
      mediaFileId: stored?.id ?? null,
      mimeType: stored?.contentType ?? media.mimeType ?? null,
      fileName,
      size: stored?.size ?? null,
      caption,
      ...(media.providerMediaId ? { providerMediaId: media.providerMediaId } : {}),
      ...(media.voice !== undefined ? { voice: media.voice } : {}),
      ...(media.animated !== undefined ? { animated: media.animated } : {}),
      ...(!stored && !pending ? { errorCode: 'Media:NotFound', errorReason: 'The message named no file that could be found.' } : {}),
    };
    return {
      kind,
      messageType,
      body,
      attachment,
      location: null,
      durationOrSize: stored ? String(stored.size) : null,
      webhook: {
        body,
        mediaUrl: stored?.url ?? null,
        mimeType: attachment.mimeType,
        fileName,
        size: stored?.size ?? null,
        ...(!stored && !pending ? { errorCode: 'Media:NotFound', errorReason: 'The message named no file that could be found.' } : {}),
      },
      pendingMedia: pending,
    };
  }

  switch (kind) {
    case 'text':
      return plain(message.text ?? '');
    case 'location': {
      const location = message.location ?? { latitude: 0, longitude: 0, name: null, address: null, url: null };
      const body = location.name ?? location.address ?? `${location.latitude},${location.longitude}`;
      return {
        ...plain(body, location.url ? { url: location.url } : {}, { latitude: location.latitude, longitude: location.longitude }),
        location: { latitude: location.latitude, longitude: location.longitude, name: location.name, address: location.address },
      };
    }
    case 'contacts': {
      const contacts = message.contacts ?? [];
      return plain(contacts.map((c) => c.name.formattedName).join(', '), { contacts }, { contacts });
    }
    case 'button':
    case 'interactive': {
      const buttonPayload = message.payload ?? null;
      const buttonText = message.text ?? null;
      return plain(buttonPayload ?? buttonText ?? '', { buttonPayload, buttonText }, { buttonPayload, buttonText });
    }
    case 'reaction': {
      const reaction = message.reaction ?? { messageId: '', emoji: '' };
      return plain(
        reaction.emoji,
        { emoji: reaction.emoji, reactedMessageId: reactedEventId, reactedProviderMessageId: reaction.messageId || null },
        { reactedMessageId: reactedEventId, reactedProviderMessageId: reaction.messageId || null },
      );
    }
    default:
      return plain(message.text ?? '', { raw: message.raw ?? null });
  }
}
