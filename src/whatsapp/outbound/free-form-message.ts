import type {
  ContactCardDto,
  SendAudioDto,
  SendContactsDto,
  SendCtaUrlDto,
  SendFileDto,
  SendImageDto,
  SendInteractiveButtonsDto,
  SendListDto,
  SendLocationDto,
  SendTextDto,
  SendVideoDto,
} from '../dto/send-message.dto.js';
import { DuplicateButtonIds, InvalidSendField } from '../whatsapp.errors.js';
import type { LocationInfo } from '../../conversations/conversation-event.entity.js';
import type { MediaType } from '../../storage/media-file.entity.js';

export type FreeFormMessageType = 'Text' | 'Image' | 'Audio' | 'Video' | 'Document' | 'Interactive' | 'Location' | 'Contact' | 'Reaction';

/**
 * A free-form message: its Cloud API request, the timeline preview and the message type of the
 * webhooks; `attachment` adds to the timeline event's attachment, `location` is the event's location.
 */
export interface FreeFormMessage {
  request: Record<string, unknown>;
  preview: string;
  messageType: FreeFormMessageType;
  attachment?: Record<string, unknown>;
  location?: LocationInfo;
  /** A media message sent by an uploaded file: the worker uploads it and puts the provider's id in `request[type].id`. */
  media?: MediaById;
}

/** An uploaded file a media message sends by id, and the kind of file the message type takes. */
export interface MediaById {
  fileId: string;
  mediaType: MediaType;
}

/** A message's Cloud API body; `to` when the send names a number (SendAcceptance addresses every request to its contact finally). */
const envelope = (to: string | undefined, type: string, content: unknown) => ({
  messaging_product: 'whatsapp',
  recipient_type: 'individual',
  ...(to ? { to: to.replace(/^\+/, '') } : {}),
  type,
  [type]: content,
});

/** `{ key: value }` when value is given (not undefined, null or ""), else nothing: optional keys are left out, never sent as null. */
const opt = <K extends string>(key: K, value: unknown): Partial<Record<K, unknown>> =>
  value === undefined || value === null || value === '' ? {} : ({ [key]: value } as Record<K, unknown>);

/** The `link` of a URL media send, or (with `mediaId`) nothing yet: the worker adds the provider's `id`. */
const source = (url: string | undefined, mediaId: string | undefined) => (mediaId ? {} : { link: url });
const byId = (mediaId: string | undefined, mediaType: MediaType): Pick<FreeFormMessage, 'media'> =>
  mediaId ? { media: { fileId: mediaId, mediaType } } : {};

const invalid = InvalidSendField;

/** Interactive header, body and footer, each left out when not given. */
const interactiveText = (dto: { header?: string; body: string; footer?: string }) => ({
  ...(dto.header ? { header: { type: 'text', text: dto.header } } : {}),
  body: { text: dto.body },
  ...(dto.footer ? { footer: { text: dto.footer } } : {}),
});

const contactCard = (card: ContactCardDto) => ({
  name: { formatted_name: card.name.formattedName, ...opt('first_name', card.name.firstName), ...opt('last_name', card.name.lastName) },
  ...(card.phones?.length ? { phones: card.phones.map((p) => ({ phone: p.phone, ...opt('type', p.type) })) } : {}),
  ...(card.emails?.length ? { emails: card.emails.map((e) => ({ email: e.email, ...opt('type', e.type) })) } : {}),
  ...(card.org && (card.org.company || card.org.title)
    ? { org: { ...opt('company', card.org.company), ...opt('title', card.org.title) } }
    : {}),
});

/** At most 10 rows in all, unique row ids, and a title on every section when there are several (Meta refuses the message otherwise). */
function checkListSections(dto: SendListDto): void {
  const rows = dto.sections.flatMap((section, s) => section.rows.map((row, r) => ({ row, path: `sections[${s}].rows[${r}]` })));
  if (rows.length > 10)
    throw invalid('WhatsApp:TooManyListRows', `A list holds at most 10 rows in all; this one has ${rows.length}.`, 'sections');
  const seen = new Set<string>();
  for (const { row, path } of rows) {
    if (seen.has(row.id)) throw invalid('WhatsApp:DuplicateRowIds', `Row ids must be unique: '${row.id}' appears twice.`, `${path}.id`);
    seen.add(row.id);
  }
  if (dto.sections.length > 1) {
    const untitled = dto.sections.findIndex((section) => !section.title);
    if (untitled >= 0)
      throw invalid(
        'WhatsApp:SectionTitleRequired',
        'Every section needs a title when the list has more than one.',
        `sections[${untitled}].title`,
      );
  }
}

/** The WhatsApp Cloud API bodies of the free-form sends. */
export const FreeForm = {
  text: (dto: SendTextDto): FreeFormMessage => ({
    request: envelope(dto.toNumber, 'text', { body: dto.text, preview_url: dto.previewUrl ?? false }),
    preview: dto.text,
    messageType: 'Text',
  }),
  image: (dto: SendImageDto): FreeFormMessage => ({
    request: envelope(dto.toNumber, 'image', { ...source(dto.imageUrl, dto.mediaId), ...(dto.caption ? { caption: dto.caption } : {}) }),
    preview: dto.caption ?? '[image]',
    messageType: 'Image',
    ...byId(dto.mediaId, 'image'),
  }),
  audio: (dto: SendAudioDto): FreeFormMessage => ({
    request: envelope(dto.toNumber, 'audio', source(dto.audioUrl, dto.mediaId)),
    preview: '[audio]',
    messageType: 'Audio',
    ...byId(dto.mediaId, 'audio'),
  }),
  video: (dto: SendVideoDto): FreeFormMessage => ({
    request: envelope(dto.toNumber, 'video', { ...source(dto.videoUrl, dto.mediaId), ...(dto.caption ? { caption: dto.caption } : {}) }),
    preview: dto.caption ?? '[video]',
    messageType: 'Video',
    ...byId(dto.mediaId, 'video'),
  }),
  file: (dto: SendFileDto): FreeFormMessage => ({
    request: envelope(dto.toNumber, 'document', {
      ...source(dto.fileUrl, dto.mediaId),
      ...opt('filename', dto.fileName),
      ...(dto.caption ? { caption: dto.caption } : {}),
    }),
    preview: dto.caption ?? dto.fileName ?? '[document]',
    messageType: 'Document',
    ...byId(dto.mediaId, 'document'),
  }),
  interactiveButtons: (dto: SendInteractiveButtonsDto): FreeFormMessage => {
    const ids = dto.buttons.map((b) => b.id);
    if (new Set(ids).size !== ids.length) {
      throw DuplicateButtonIds();
    }
    return {
      request: envelope(dto.toNumber, 'interactive', {
        type: 'button',
        ...interactiveText(dto),
        action: { buttons: dto.buttons.map((b) => ({ type: 'reply', reply: { id: b.id, title: b.title } })) },
      }),
      preview: dto.body,
      messageType: 'Interactive',
    };
  },
  location: (dto: SendLocationDto): FreeFormMessage => {
    const location = { latitude: dto.latitude, longitude: dto.longitude, name: dto.name ?? null, address: dto.address ?? null };
    return {
      request: envelope(dto.toNumber, 'location', {
        latitude: dto.latitude,
        longitude: dto.longitude,
        ...opt('name', dto.name),
        ...opt('address', dto.address),
      }),
      preview: dto.name ?? dto.address ?? '[location]',
      messageType: 'Location',
      attachment: { latitude: dto.latitude, longitude: dto.longitude },
      location,
    };
  },
  contacts: (dto: SendContactsDto): FreeFormMessage => ({
    request: envelope(dto.toNumber, 'contacts', dto.contacts.map(contactCard)),
    preview: dto.contacts.map((c) => c.name.formattedName).join(', '),
    messageType: 'Contact',
  }),
  /** `providerMessageId` is the WhatsApp id (`wamid.…`) of the message reacted to; `eventId` ours. */
  reaction: (toNumber: string | undefined, reaction: { eventId: string; providerMessageId: string; emoji: string }): FreeFormMessage => ({
    request: envelope(toNumber, 'reaction', { message_id: reaction.providerMessageId, emoji: reaction.emoji }),
    preview: reaction.emoji,
    messageType: 'Reaction',
    attachment: { reactedMessageId: reaction.eventId },
  }),
  list: (dto: SendListDto): FreeFormMessage => {
    checkListSections(dto);
    return {
      request: envelope(dto.toNumber, 'interactive', {
        type: 'list',
        ...interactiveText(dto),
        action: {
          button: dto.buttonText,
          sections: dto.sections.map((section) => ({
            ...opt('title', section.title),
            rows: section.rows.map((row) => ({ id: row.id, title: row.title, ...opt('description', row.description) })),
          })),
        },
      }),
      preview: dto.body,
      messageType: 'Interactive',
    };
  },
  ctaUrl: (dto: SendCtaUrlDto): FreeFormMessage => ({
    request: envelope(dto.toNumber, 'interactive', {
      type: 'cta_url',
      ...interactiveText(dto),
      action: { name: 'cta_url', parameters: { display_text: dto.displayText, url: dto.url } },
    }),
    preview: dto.body,
    messageType: 'Interactive',
  }),
};

/** The Cloud API body of Mark As Read: `{ messaging_product, status: "read", message_id, typing_indicator? }`. */
export function markReadRequest(providerMessageId: string, typingIndicator: boolean | undefined): Record<string, unknown> {
  return {
    messaging_product: 'whatsapp',
    status: 'read',
    message_id: providerMessageId,
    ...(typingIndicator ? { typing_indicator: { type: 'text' } } : {}),
  };
}

/**
 * A media message by uploaded file once the file is known: a document without `fileName` takes the
 * file's name, and the timeline attachment names the file.
 */
export function withStoredFile(
  message: FreeFormMessage,
  file: { id: string; url: string; fileName: string; contentType: string },
): FreeFormMessage {
  const type = message.request.type as string;
  const content = message.request[type] as Record<string, unknown>;
  const named = type === 'document' && !content.filename;
  return {
    ...message,
    request: named ? { ...message.request, [type]: { ...content, filename: file.fileName } } : message.request,
    preview: named && message.preview === '[document]' ? file.fileName : message.preview,
    attachment: { ...message.attachment, mediaId: file.id, mediaUrl: file.url, mimeType: file.contentType, fileName: file.fileName },
  };
}

/** The request with the provider's media id in its media object (`{ image: { id, caption } }`). */
export function withProviderMediaId(request: Record<string, unknown>, providerMediaId: string): Record<string, unknown> {
  const type = request.type as string;
  return { ...request, [type]: { id: providerMediaId, ...(request[type] as Record<string, unknown>) } };
}
