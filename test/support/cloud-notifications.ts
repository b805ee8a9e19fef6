import { createHash, randomBytes } from 'node:crypto';

/**
 * A corpus of WhatsApp Cloud API webhook notifications, shaped after Meta's webhook reference for
 * the `messages` field (each message type, `contacts[]` with `profile.name`, `wa_id` and the
 * business-scoped ids of 2026: `user_id`, `parent_user_id`, `profile.username`, `from_user_id`;
 * `from`/`wa_id` left out for a user who hides their number), status notifications with `pricing`
 * and `recipient_user_id`, and `user_id_update`. Values are made up; shapes are Meta's.
 */

/** Who writes: a phone number (digits, as Meta sends `wa_id`), a BSUID, or both. */
export interface CloudSender {
  phone?: string;
  userId?: string;
  parentUserId?: string;
  username?: string;
  name?: string;
}

export const PHONE_NUMBER_ID = '106540352242922';
export const WABA_ID = '102290129340398';

export const nowSeconds = () => String(Math.floor(Date.now() / 1000));

/** The envelope every notification comes in. */
export function envelope(value: Record<string, unknown>, field = 'messages'): Record<string, unknown> {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: WABA_ID,
        changes: [
          {
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550783881', phone_number_id: PHONE_NUMBER_ID },
              ...value,
            },
            field,
          },
        ],
      },
    ],
  };
}

/** The sender's `contacts[]` entry: profile name and username, `wa_id` only when the number is shared, `user_id` when given. */
export function contactEntry(sender: CloudSender): Record<string, unknown> {
  return {
    profile: { ...(sender.name ? { name: sender.name } : {}), ...(sender.username ? { username: sender.username } : {}) },
    ...(sender.phone ? { wa_id: sender.phone } : {}),
    ...(sender.userId ? { user_id: sender.userId } : {}),
    ...(sender.parentUserId ? { parent_user_id: sender.parentUserId } : {}),
  };
}

/** A `messages` notification with one message from `sender`: `from` only when the number is shared, `from_user_id` when the BSUID is. */
export function inbound(sender: CloudSender, id: string, content: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return envelope({
    contacts: [contactEntry(sender)],
    messages: [
      {
        ...(sender.phone ? { from: sender.phone } : {}),
        ...(sender.userId ? { from_user_id: sender.userId } : {}),
        ...(sender.parentUserId ? { from_parent_user_id: sender.parentUserId } : {}),
        id,
        timestamp: nowSeconds(),
        ...extra,
        ...content,
      },
    ],
  });
}

/** The `type` and type object of each kind of message, as Meta sends them. */
export const content = {
  text: (body: string) => ({ type: 'text', text: { body } }),
  image: (mediaId: string, sha256: string, caption?: string) => ({
    type: 'image',
    image: { ...(caption ? { caption } : {}), mime_type: 'image/jpeg', sha256, id: mediaId },
  }),
  video: (mediaId: string, sha256: string, caption?: string) => ({
    type: 'video',
    video: { ...(caption ? { caption } : {}), mime_type: 'video/mp4', sha256, id: mediaId },
  }),
  audio: (mediaId: string, sha256: string, voice: boolean) => ({
    type: 'audio',
    audio: { mime_type: voice ? 'audio/ogg; codecs=opus' : 'audio/mpeg', sha256, id: mediaId, voice },
  }),
  document: (mediaId: string, sha256: string, filename: string, caption?: string) => ({
    type: 'document',
    document: { ...(caption ? { caption } : {}), filename, mime_type: 'application/pdf', sha256, id: mediaId },
  }),
  sticker: (mediaId: string, sha256: string) => ({
    type: 'sticker',
    sticker: { mime_type: 'image/webp', sha256, id: mediaId, animated: false },
  }),
  location: (latitude: number, longitude: number, name?: string, address?: string) => ({
    type: 'location',
    location: { latitude, longitude, ...(name ? { name } : {}), ...(address ? { address } : {}) },
  }),
  contacts: () => ({
    type: 'contacts',
    contacts: [
      {
        addresses: [
          {
            city: 'Menlo Park',
            country: 'United States',
            country_code: 'us',
            state: 'CA',
            street: '1 Hacker Way',
            type: 'WORK',
            zip: '94025',
          },
        ],
        birthday: '1999-01-23',
        emails: [{ email: 'bjorn@example.com', type: 'WORK' }],
        name: { formatted_name: 'Björn Jonsson', first_name: 'Björn', last_name: 'Jonsson' },
        org: { company: 'Lucky Shrub', department: 'Sales', title: 'Manager' },
        phones: [{ phone: '+1 (415) 555-0177', wa_id: '14155550177', type: 'WORK' }],
        urls: [{ url: 'https://www.luckyshrub.com', type: 'WORK' }],
      },
    ],
  }),
  button: (text: string, payload: string) => ({ type: 'button', button: { payload, text } }),
  buttonReply: (id: string, title: string) => ({ type: 'interactive', interactive: { type: 'button_reply', button_reply: { id, title } } }),
  listReply: (id: string, title: string, description: string) => ({
    type: 'interactive',
    interactive: { type: 'list_reply', list_reply: { id, title, description } },
  }),
  flowReply: (responseJson: string) => ({
    type: 'interactive',
    interactive: { type: 'nfm_reply', nfm_reply: { name: 'flow', body: 'Sent', response_json: responseJson } },
  }),
  reaction: (messageId: string, emoji?: string) => ({
    type: 'reaction',
    reaction: { message_id: messageId, ...(emoji !== undefined ? { emoji } : {}) },
  }),
  order: () => ({
    type: 'order',
    order: {
      catalog_id: '194836987003835',
      text: 'Please deliver before noon',
      product_items: [{ product_retailer_id: 'di9ozbzfi4', quantity: 2, item_price: 30, currency: 'USD' }],
    },
  }),
  unsupported: () => ({
    type: 'unsupported',
    unsupported: { type: 'edit' },
    errors: [
      {
        code: 131051,
        title: 'Message type unknown',
        message: 'Message type unknown',
        error_data: { details: 'Message type is currently not supported.' },
      },
    ],
  }),
  unknown: () => ({ type: 'hologram', hologram: { frames: 3 } }),
};

/** A `user_changed_number` system message (no `contacts` array, as Meta sends them). */
export function userChangedNumber(oldPhone: string, newPhone: string, newUserId: string, id: string, previousUserId?: string) {
  return envelope({
    messages: [
      {
        from: oldPhone,
        id,
        timestamp: nowSeconds(),
        type: 'system',
        system: {
          body: `User changed from ${oldPhone} to ${newPhone}`,
          wa_id: newPhone,
          user_id: newUserId,
          ...(previousUserId ? { previous_user_id: previousUserId } : {}),
          type: 'user_changed_number',
        },
      },
    ],
  });
}

/** A `user_id_update` change: the user's BSUID moved from `previous` to `current`. */
export function userIdUpdate(previous: string, current: string, phone?: string) {
  return envelope(
    {
      ...(phone ? { contacts: [{ profile: { name: 'Renamed' }, wa_id: phone }] } : {}),
      user_id_update: [
        {
          ...(phone ? { wa_id: phone } : {}),
          detail: 'User id for the user has been updated.',
          user_id: { previous, current },
          timestamp: nowSeconds(),
        },
      ],
    },
    'user_id_update',
  );
}

export interface StatusOptions {
  /** Set when the message was sent to a phone number. */
  recipientId?: string;
  /** Set when the message was sent to a BSUID. */
  recipientUserId?: string;
  pricing?: { billable?: boolean; pricing_model: string; category: string; type?: string };
  /** `conversation` as Meta adds it to sent (with `expiration_timestamp`) and delivered statuses. */
  conversation?: { id: string; expiration_timestamp?: string; origin: { type: string } };
  errors?: unknown[];
  /** The recipient's `contacts[]` entry (sent, delivered, read). */
  contact?: CloudSender;
  /** When Meta says the status happened (Unix seconds, as Meta sends it); now by default. */
  timestamp?: string;
}

/** A status notification of a sent message, with `pricing` as Meta adds it to sent/delivered/read. */
export function status(messageId: string, state: StatusState, options: StatusOptions) {
  return envelope({
    ...(options.contact ? { contacts: [contactEntry(options.contact)] } : {}),
    statuses: [statusEntry(messageId, state, options)],
  });
}

export type StatusState = 'sent' | 'delivered' | 'read' | 'failed';

/** One `statuses[]` entry (a notification may carry several, as Meta batches them). */
export function statusEntry(messageId: string, state: StatusState, options: StatusOptions): Record<string, unknown> {
  return {
    id: messageId,
    status: state,
    timestamp: options.timestamp ?? nowSeconds(),
    ...(options.recipientId ? { recipient_id: options.recipientId } : {}),
    ...(options.recipientUserId ? { recipient_user_id: options.recipientUserId } : {}),
    ...(options.conversation ? { conversation: options.conversation } : {}),
    ...(options.pricing ? { pricing: options.pricing } : {}),
    ...(options.errors ? { errors: options.errors } : {}),
  };
}

/** A file the fake Graph API serves for a media message of the corpus. */
export interface CorpusMedia {
  id: string;
  bytes: Buffer;
  mimeType: string;
  sha256: string;
}

function media(id: string, size: number, mimeType: string): CorpusMedia {
  const bytes = randomBytes(size);
  return { id, bytes, mimeType, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/** One corpus entry: a notification and what the service should make of it. */
export interface CorpusEntry {
  name: string;
  messageId: string;
  notification: Record<string, unknown>;
  messageType: string;
  body: string;
  /** Fields of the WhatsApp Message Webhook to expect exactly (beyond messageType and body). */
  fields: Record<string, unknown>;
  media?: CorpusMedia;
  /** The entry reacts to the message of the entry of this name (its event id is the expected reactedMessageId). */
  reactsTo?: string;
}

/** Every inbound type, from `sender`; message ids start with `prefix`. Media ids are unique per prefix. */
export function inboundCorpus(prefix: string, sender: CloudSender): CorpusEntry[] {
  const id = (name: string) => `wamid.${prefix}.${name}`;
  const mediaId = (name: string) => `${prefix.replace(/\D/g, '') || '9'}${name.length}${Buffer.from(name).toString('hex')}`;
  const image = media(mediaId('image'), 3000, 'image/jpeg');
  const video = media(mediaId('video'), 5000, 'video/mp4');
  const voice = media(mediaId('voice'), 1500, 'audio/ogg; codecs=opus');
  const pdf = media(mediaId('document'), 4000, 'application/pdf');
  const sticker = media(mediaId('sticker'), 800, 'image/webp');
  const entry = (name: string, c: Record<string, unknown>, messageType: string, body: string, fields: Record<string, unknown> = {}) => ({
    name,
    messageId: id(name),
    notification: inbound(sender, id(name), c),
    messageType,
    body,
    fields,
  });
  return [
    entry('text', content.text('Hello, is my order on its way?'), 'Text', 'Hello, is my order on its way?'),
    {
      ...entry('image', content.image(image.id, image.sha256, 'The broken part'), 'Image', 'The broken part', {
        mimeType: 'image/jpeg',
        size: 3000,
      }),
      media: image,
    },
    { ...entry('video', content.video(video.id, video.sha256), 'Video', '', { mimeType: 'video/mp4', size: 5000 }), media: video },
    {
      ...entry('voice', content.audio(voice.id, voice.sha256, true), 'Audio', '', { mimeType: 'audio/ogg; codecs=opus', size: 1500 }),
      media: voice,
    },
    {
      ...entry('document', content.document(pdf.id, pdf.sha256, 'invoice-2026.pdf', 'My invoice'), 'Document', 'My invoice', {
        mimeType: 'application/pdf',
        fileName: 'invoice-2026.pdf',
        size: 4000,
      }),
      media: pdf,
    },
    {
      ...entry('sticker', content.sticker(sticker.id, sticker.sha256), 'Sticker', '', { mimeType: 'image/webp', size: 800 }),
      media: sticker,
    },
    entry('location', content.location(24.7136, 46.6753, 'Kingdom Centre', 'King Fahd Rd, Riyadh'), 'Location', 'Kingdom Centre', {
      latitude: 24.7136,
      longitude: 46.6753,
    }),
    entry('contacts', content.contacts(), 'Contact', 'Björn Jonsson'),
    entry('button', content.button('Yes, deliver', 'DELIVER_YES'), 'Interactive', 'DELIVER_YES', {
      buttonPayload: 'DELIVER_YES',
      buttonText: 'Yes, deliver',
    }),
    entry('button-reply', content.buttonReply('opt-2', 'Tomorrow'), 'Interactive', 'opt-2', {
      buttonPayload: 'opt-2',
      buttonText: 'Tomorrow',
    }),
    entry('list-reply', content.listReply('size-m', 'Medium', 'Fits 38-40'), 'Interactive', 'size-m', {
      buttonPayload: 'size-m',
      buttonText: 'Medium',
    }),
    entry('flow-reply', content.flowReply('{"flow_token":"t1","rating":"5"}'), 'Interactive', '{"flow_token":"t1","rating":"5"}', {
      buttonPayload: '{"flow_token":"t1","rating":"5"}',
      buttonText: 'Sent',
    }),
    { ...entry('reaction', content.reaction(id('text'), '👍'), 'Reaction', '👍'), reactsTo: 'text' },
    { ...entry('unreaction', content.reaction(id('text')), 'Reaction', ''), reactsTo: 'text' },
    entry('order', content.order(), 'Unsupported', 'Please deliver before noon'),
    entry('unsupported', content.unsupported(), 'Unsupported', ''),
    entry('unknown', content.unknown(), 'Unsupported', ''),
  ];
}

/**
 * A click-to-WhatsApp ad's `referral` as Meta's text messages reference shows it (an image ad;
 * `video_url` and `thumbnail_url` come with a video ad instead of `image_url`).
 */
export function adReferral(sourceId: string, headline = 'Chat with us'): Record<string, unknown> {
  return {
    source_url: 'https://fb.me/3cr4Wqqkv',
    source_id: sourceId,
    source_type: 'ad',
    body: 'Summer Succulents are here!',
    headline,
    media_type: 'image',
    image_url: 'https://scontent.xx.fbcdn.net/v/t45.1/succulents.jpg',
    ctwa_clid: `Aff-${sourceId}-n8ZTODiE79d22KtAwQKj9e_mIEOOj27vDVwFjN80dp4`,
    welcome_message: { text: 'Hi there! Let us know how we can help!' },
  };
}

/** `context` of a message sent with a product's "Message business" button. */
export function productInquiry(businessPhone: string, contextId: string): Record<string, unknown> {
  return {
    context: { from: businessPhone, id: contextId, referred_product: { catalog_id: '194836987003835', product_retailer_id: 'di9ozbzfi4' } },
  };
}

/** `context` of a forwarded message: `forwarded` up to five forwards, `frequently_forwarded` beyond. */
export function forwardedContext(frequently: boolean): Record<string, unknown> {
  return { context: frequently ? { frequently_forwarded: true } : { forwarded: true } };
}

/** A customer's edit (Coexistence numbers): the whole new message under `edit.message`. */
export function edit(originalId: string, message: Record<string, unknown>): Record<string, unknown> {
  return { type: 'edit', edit: { original_message_id: originalId, message } };
}

/** A customer's deletion of an earlier message. */
export function revoke(originalId: string): Record<string, unknown> {
  return { type: 'revoke', revoke: { original_message_id: originalId } };
}

/**
 * An `smb_message_echoes` notification: a message the business sent from the WhatsApp Business app
 * to `customer`, with the customer's `contacts[]` entry (2026) and `to` / `to_user_id`.
 */
export function echo(customer: CloudSender, id: string, messageContent: Record<string, unknown>, businessPhone = '15550783881') {
  return envelope(
    {
      contacts: [contactEntry(customer)],
      message_echoes: [
        {
          from: businessPhone,
          ...(customer.phone ? { to: customer.phone } : {}),
          ...(customer.userId ? { to_user_id: customer.userId } : {}),
          id,
          timestamp: nowSeconds(),
          ...messageContent,
        },
      ],
    },
    'smb_message_echoes',
  );
}

/** A `user_changed_user_id` system message: the user's BSUID rotated from `previousUserId` to `newUserId`. */
export function userChangedUserId(previousUserId: string, newUserId: string, id: string, phone?: string): Record<string, unknown> {
  return {
    ...(phone ? { from: phone } : {}),
    from_user_id: previousUserId,
    id,
    timestamp: nowSeconds(),
    type: 'system',
    system: {
      body: 'User changed their WhatsApp user id',
      ...(phone ? { wa_id: phone } : {}),
      user_id: newUserId,
      previous_user_id: previousUserId,
      type: 'user_changed_user_id',
    },
  };
}

/** The messages of one notification, as `messages[]` entries: `from` only when the number is shared. */
export function messageFrom(sender: CloudSender, id: string, messageContent: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    ...(sender.phone ? { from: sender.phone } : {}),
    ...(sender.userId ? { from_user_id: sender.userId } : {}),
    id,
    timestamp: nowSeconds(),
    ...extra,
    ...messageContent,
  };
}

/** One `messages` notification carrying several messages and `contacts[]` entries, in that order. */
export function batch(contacts: CloudSender[], messages: Array<Record<string, unknown>>) {
  return envelope({ ...(contacts.length > 0 ? { contacts: contacts.map(contactEntry) } : {}), messages });
}

/**
 * A `phone_number_quality_update` notification as Meta's webhook reference shapes it: no
 * `messaging_product`/`metadata`, the number as `display_phone_number` (digits), `old_limit` only
 * for messaging-limit changes, `max_daily_conversations_per_business` (the portfolio's limit since
 * October 2025) beside the older `current_limit`.
 */
export function phoneNumberQualityUpdate(
  displayPhoneNumber: string,
  event: string,
  limits: { current?: string; old?: string; perBusiness?: string } = {},
  wabaId = WABA_ID,
): Record<string, unknown> {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: wabaId,
        time: Number(nowSeconds()),
        changes: [
          {
            value: {
              display_phone_number: displayPhoneNumber,
              event,
              ...(limits.old ? { old_limit: limits.old } : {}),
              ...(limits.current ? { current_limit: limits.current } : {}),
              ...(limits.perBusiness ? { max_daily_conversations_per_business: limits.perBusiness } : {}),
            },
            field: 'phone_number_quality_update',
          },
        ],
      },
    ],
  };
}

/** An `account_update` notification about the whole WhatsApp Business Account (`value` as Meta sends it, e.g. `{ event, restriction_info }`). */
export function accountUpdate(value: Record<string, unknown>, wabaId = WABA_ID): Record<string, unknown> {
  return {
    object: 'whatsapp_business_account',
    entry: [{ id: wabaId, time: Number(nowSeconds()), changes: [{ value, field: 'account_update' }] }],
  };
}
