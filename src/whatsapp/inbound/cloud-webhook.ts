import { createHmac, timingSafeEqual } from 'node:crypto';
import { toE164 } from '../../common/phone/phone-number.js';
import type { ReferralInfo } from '../../conversations/message-details.js';
import type { MessagePricing } from '../../conversations/message-events.js';
import type { IdentityUpdate, InboundMessage, SharedContact } from './inbound-message.js';
import { describeCloudError } from '../providers/cloud-api-errors.js';
import type { WhatsAppIds } from '../../contacts/whatsapp-ids.js';
import { callerIds, isUserCallOffer, readCallSignals } from '../../voice/whatsapp-calls/call-signals.js';

/** A user's entry in a notification's `contacts`: profile name, phone (`wa_id`) and business-scoped ids. */
export interface CloudContact {
  profile?: { name?: string; username?: string };
  wa_id?: string;
  user_id?: string;
  parent_user_id?: string;
}

/** A media object of an image, video, audio, document or sticker message. */
export interface CloudMedia {
  id?: string;
  mime_type?: string;
  sha256?: string;
  caption?: string;
  filename?: string;
  voice?: boolean;
  animated?: boolean;
}

/** One entry of `messages`: `from` is absent when the user hides their number; `from_user_id` is the BSUID. */
export interface CloudMessage {
  from?: string;
  from_user_id?: string;
  from_parent_user_id?: string;
  id: string;
  timestamp: string;
  type: string;
  text?: { body: string };
  button?: { payload: string; text: string };
  interactive?: {
    type: string;
    button_reply?: { id: string; title: string };
    list_reply?: { id: string; title: string; description?: string };
    nfm_reply?: { name?: string; body?: string; response_json?: string };
    /** The user's answer to a call permission request (API.md §15). */
    call_permission_reply?: { response?: string; expiration_timestamp?: number | string; is_permanent?: boolean; response_source?: string };
  };
  context?: {
    id?: string;
    from?: string;
    forwarded?: boolean;
    frequently_forwarded?: boolean;
    referred_product?: { catalog_id?: string; product_retailer_id?: string };
  };
  referral?: CloudReferral;
  image?: CloudMedia;
  video?: CloudMedia;
  audio?: CloudMedia;
  document?: CloudMedia;
  sticker?: CloudMedia;
  location?: { latitude: number | string; longitude: number | string; name?: string; address?: string; url?: string };
  contacts?: CloudSharedContact[];
  reaction?: { message_id: string; emoji?: string };
  /** A customer's or (in an echo) the business's edit of an earlier message: the whole new message. */
  edit?: { original_message_id?: string; message?: Omit<CloudMessage, 'id' | 'timestamp' | 'from'> };
  revoke?: { original_message_id?: string };
  /** Echoes (`smb_message_echoes`): the customer the business wrote to, by number and BSUID. */
  to?: string;
  to_user_id?: string;
  to_parent_user_id?: string;
  order?: { catalog_id?: string; text?: string; product_items?: unknown[] };
  system?: {
    body?: string;
    type?: string;
    wa_id?: string;
    user_id?: string;
    parent_user_id?: string;
    previous_user_id?: string;
    previous_parent_user_id?: string;
  };
  errors?: CloudError[];
}

/** The click-to-WhatsApp ad or post a message came from. */
export interface CloudReferral {
  source_url?: string;
  source_id?: string;
  source_type?: string;
  headline?: string;
  body?: string;
  media_type?: string;
  image_url?: string;
  video_url?: string;
  thumbnail_url?: string;
  ctwa_clid?: string;
  welcome_message?: { text?: string };
}

/** A shared contact card as Meta sends it. */
export interface CloudSharedContact {
  name?: {
    formatted_name?: string;
    first_name?: string;
    last_name?: string;
    middle_name?: string;
    prefix?: string;
    suffix?: string;
  };
  phones?: Array<{ phone?: string; wa_id?: string; type?: string }>;
  emails?: Array<{ email?: string; type?: string }>;
  org?: { company?: string; department?: string; title?: string };
  addresses?: Array<{
    street?: string;
    city?: string;
    state?: string;
    zip?: string;
    country?: string;
    country_code?: string;
    type?: string;
  }>;
  urls?: Array<{ url?: string; type?: string }>;
  birthday?: string;
}

/** One entry of `statuses`: `recipient_id` is absent for a message sent to a BSUID, `recipient_user_id` present then. */
export interface CloudStatus {
  id: string;
  status: string;
  timestamp: string;
  recipient_id?: string;
  recipient_user_id?: string;
  pricing?: { billable?: boolean; pricing_model?: string; category?: string; type?: string };
  errors?: CloudError[];
}

/** One entry of a `user_id_update` change: the user's BSUID moved from `previous` to `current`. */
export interface CloudUserIdUpdate {
  wa_id?: string;
  detail?: string;
  user_id?: { previous?: string; current?: string };
  parent_user_id?: { previous?: string; current?: string };
  timestamp?: string;
}

/**
 * One entry of a `user_preferences` change: the user stopped (`stop`) or resumed (`resume`)
 * marketing messages from the business (`category: marketing_messages`).
 */
export interface CloudUserPreference {
  wa_id?: string;
  user_id?: string;
  parent_user_id?: string;
  detail?: string;
  category?: string;
  value?: string;
  timestamp?: string | number;
}

/** The parts of a WhatsApp Cloud API webhook notification this service reads. */
export interface CloudWebhookNotification {
  object?: string;
  entry?: Array<{
    changes?: Array<{
      field?: string;
      value?: {
        contacts?: CloudContact[];
        messages?: CloudMessage[];
        /** `smb_message_echoes`: what the business sent from the WhatsApp Business app on a shared number. */
        message_echoes?: CloudMessage[];
        statuses?: CloudStatus[];
        user_id_update?: CloudUserIdUpdate[];
        user_preferences?: CloudUserPreference[];
      } & CloudTemplateChange;
    }>;
  }>;
}

/**
 * The value of a template lifecycle change (`message_template_status_update`,
 * `template_category_update`, `message_template_quality_update`): the template by id, name and
 * language, and what changed.
 */
export interface CloudTemplateChange {
  message_template_id?: number | string;
  message_template_name?: string;
  message_template_language?: string;
  /** Status updates: APPROVED, REJECTED, PENDING, PAUSED, DISABLED, FLAGGED, REINSTATED, ARCHIVED, … */
  event?: string;
  /** Status updates: why (a rejection's reason; `NONE` when none). */
  reason?: string;
  /** Status updates (newer versions): the template's category. */
  message_template_category?: string;
  /** Status updates of a paused or disabled template: Meta's title and description. */
  other_info?: { title?: string; description?: string };
  /** Rejections: Meta's details. */
  rejection_info?: { reason?: string; recommendation?: string };
  previous_category?: string;
  new_category?: string;
  previous_quality_score?: string;
  new_quality_score?: string;
}

/** A template lifecycle webhook in provider-neutral form. */
export type TemplateLifecycleEvent = {
  name: string | null;
  language: string | null;
  providerTemplateId: string | null;
} & (
  | { kind: 'status'; status: string; reason: string | null; category?: string }
  | { kind: 'category'; previousCategory: string | null; newCategory: string }
  | { kind: 'quality'; previousQualityScore: string | null; newQualityScore: string }
);

const TEMPLATE_FIELDS = new Set(['message_template_status_update', 'template_category_update', 'message_template_quality_update']);

/** A template lifecycle change, or null when the value lacks what its field needs. */
function readTemplateChange(field: string, value: CloudTemplateChange): TemplateLifecycleEvent | null {
  const id = value.message_template_id;
  const base = {
    name: text(value.message_template_name),
    language: text(value.message_template_language),
    providerTemplateId: typeof id === 'number' || (typeof id === 'string' && id !== '') ? String(id) : null,
  };
  if (!base.providerTemplateId && !(base.name && base.language)) return null;
  const upper = (v: unknown) => (typeof v === 'string' && v !== '' ? v.toUpperCase() : null);
  if (field === 'message_template_status_update') {
    const status = upper(value.event);
    if (!status) return null;
    const said = [
      text(value.reason) === 'NONE' ? null : text(value.reason),
      text(value.other_info?.title),
      text(value.other_info?.description),
    ];
    const reason = said.filter(Boolean).join(': ') || null;
    const category = upper(value.message_template_category);
    return { ...base, kind: 'status', status, reason: reason?.slice(0, 1000) ?? null, ...(category ? { category } : {}) };
  }
  if (field === 'template_category_update') {
    const newCategory = upper(value.new_category);
    return newCategory ? { ...base, kind: 'category', previousCategory: upper(value.previous_category), newCategory } : null;
  }
  const newQualityScore = upper(value.new_quality_score);
  return newQualityScore ? { ...base, kind: 'quality', previousQualityScore: upper(value.previous_quality_score), newQualityScore } : null;
}

/** A Graph API error object, as in an error response or a failed status. */
export interface CloudError {
  code?: number;
  title?: string;
  message?: string;
  error_data?: { details?: string };
}

/** The provider's own words for an error: its message (or title) and details. */
export function errorText(error: CloudError | undefined): string | undefined {
  return [error?.message ?? error?.title, error?.error_data?.details].filter(Boolean).join(' — ') || undefined;
}

export interface StatusUpdate {
  providerMessageId: string;
  status: 'Sent' | 'Delivered' | 'Read' | 'Failed';
  at: string;
  errorCode: string | null;
  errorReason: string | null;
  /** From `pricing`, when the status carries it (see {@link isBillable}); undefined otherwise. */
  isBillable?: boolean;
  /** `pricing.category` (marketing, utility, authentication, service, ...), when given. */
  pricingCategory?: string | null;
  /** The whole of `pricing`, in our words, when the status carries it (see {@link readPricing}). */
  pricing?: MessagePricing;
  /** The recipient's BSUID, when the provider names it (`recipient_user_id`, or the status's `contacts[].user_id`). */
  recipientUserId?: string | null;
}

/** `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body with the app secret>`, compared in constant time. */
export function validHubSignature(rawBody: Buffer, header: string | undefined, appSecret: string | null): boolean {
  if (!header || !appSecret || !header.startsWith('sha256=')) return false;
  const expected = createHmac('sha256', appSecret).update(rawBody).digest();
  const given = Buffer.from(header.slice('sha256='.length), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const STATUS: Record<string, StatusUpdate['status']> = { sent: 'Sent', delivered: 'Delivered', read: 'Read', failed: 'Failed' };

/** Categories Meta does not charge for, under both the per-conversation and the per-message pricing. */
const FREE_CATEGORIES = new Set(['service', 'referral_conversion']);

/**
 * Whether Meta charges for the message a status reports: `pricing.billable` when present (the
 * per-conversation model), else `pricing.type` (`regular` is charged, `free_*` is not, the
 * per-message model), else the category (service and free-entry conversations are free).
 */
export function isBillable(pricing: NonNullable<CloudStatus['pricing']>): boolean {
  if (typeof pricing.billable === 'boolean') return pricing.billable;
  if (pricing.type) return pricing.type === 'regular';
  return !!pricing.category && !FREE_CATEGORIES.has(pricing.category);
}

/** A status's `pricing` as the service keeps it: model, type and category (lower-case, as Meta spells them) and whether it is charged. */
export function readPricing(pricing: NonNullable<CloudStatus['pricing']>): MessagePricing {
  const word = (value: unknown, max: number) => (typeof value === 'string' && value !== '' ? value.slice(0, max) : null);
  return {
    model: word(pricing.pricing_model, 20),
    type: word(pricing.type, 40)?.toLowerCase() ?? null,
    category: word(pricing.category, 40)?.toLowerCase() ?? null,
    billable: isBillable(pricing),
  };
}

const seconds = (timestamp: string | undefined) => new Date(Number(timestamp ?? 0) * 1000 || Date.now()).toISOString();
const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);

/** `from` / `wa_id` as E.164; the WhatsApp id is the digits of the international number without the +. */
function phoneOf(waId: string | undefined): string | null {
  if (!waId) return null;
  return toE164(waId) ?? (/^\d{6,15}$/.test(waId) ? `+${waId}` : null);
}

/** A user's choice about marketing messages (Meta's `user_preferences`): who, opted out or back in, when. */
export interface MarketingPreference {
  phoneNumber: string | null;
  userId: string | null;
  parentUserId: string | null;
  profileName: string | null;
  status: 'OptedOut' | 'OptedIn';
  at: string;
}

/**
 * An edit or deletion of an earlier message, by the customer or (an echo) by the business in the
 * WhatsApp Business app. It changes the original; when the original was never stored, `unmatched`
 * is recorded instead (an Unsupported message with the raw change).
 */
export interface MessageChange {
  kind: 'edit' | 'revoke';
  /** The provider's id of the change itself. */
  providerMessageId: string;
  originalMessageId: string;
  at: string;
  /** Edits: the message as it reads now. */
  replacement?: InboundMessage;
  unmatched: InboundMessage;
}

/** A notification in provider-neutral form: inbound messages (and echoes), status updates, identity changes and marketing preferences. */
export interface ReadNotification {
  messages: InboundMessage[];
  changes: MessageChange[];
  statuses: StatusUpdate[];
  identityUpdates: IdentityUpdate[];
  preferences: MarketingPreference[];
  /** Template lifecycle changes (status, category, quality), in the order Meta sent them. */
  templates: TemplateLifecycleEvent[];
  /** The users whose calls the notification announces (a `calls` connect with their SDP offer), by the ids Meta gives. */
  callers: WhatsAppIds[];
}

/** Splits a notification into inbound messages, status updates and identity changes, in provider-neutral form. */
export function readNotification(notification: CloudWebhookNotification): ReadNotification {
  const result: ReadNotification = {
    messages: [],
    changes: [],
    statuses: [],
    identityUpdates: [],
    preferences: [],
    templates: [],
    callers: readCallSignals(notification)
      .filter(isUserCallOffer)
      .map(callerIds)
      .filter((ids) => ids.phoneNumber || ids.userId),
  };
  for (const change of (notification.entry ?? []).flatMap((e) => e.changes ?? [])) {
    const value = change.value ?? {};
    if (change.field && TEMPLATE_FIELDS.has(change.field)) {
      const template = readTemplateChange(change.field, value);
      if (template) result.templates.push(template);
      continue;
    }
    for (const update of value.user_id_update ?? []) result.identityUpdates.push(readUserIdUpdate(update));
    for (const preference of Array.isArray(value.user_preferences) ? value.user_preferences : []) {
      const read = readPreference(preference, value.contacts ?? []);
      if (read) result.preferences.push(read);
    }
    const contacts = value.contacts ?? [];
    if (change.field === 'smb_message_echoes') {
      for (const echo of Array.isArray(value.message_echoes) ? value.message_echoes : []) {
        const read: InboundMessage = {
          ...readMessage(echo, recipientOf(contacts, echo)),
          ...echoedTo(echo, contacts),
          businessAppEcho: true,
        };
        const messageChange = readMessageChange(echo, read);
        if (messageChange) result.changes.push(messageChange);
        else result.messages.push(read);
      }
      continue;
    }
    if (change.field !== 'messages') continue;
    for (const message of value.messages ?? []) {
      const identity = message.type === 'system' ? readSystemIdentity(message) : null;
      const read = readMessage(message, contactOf(contacts, message));
      const messageChange = readMessageChange(message, read);
      if (messageChange) {
        result.changes.push(messageChange);
        continue;
      }
      if (identity) {
        result.identityUpdates.push(identity);
        // Identity changes are applied before the messages: the announcement belongs to the contact under its new ids.
        read.fromNumber = identity.phoneNumber ?? read.fromNumber;
        read.fromUserId = identity.userId ?? read.fromUserId;
        read.fromParentUserId = identity.parentUserId ?? read.fromParentUserId;
      }
      result.messages.push(read);
    }
    for (const status of value.statuses ?? []) {
      const read = readStatus(status, contacts);
      if (read) result.statuses.push(read);
    }
  }
  return result;
}

/**
 * The notification's contact entry of a message's sender: by BSUID, else by number; never by
 * position, so an entry naming someone else (a shared contact, another sender) gives nothing away.
 */
function contactOf(contacts: CloudContact[], message: CloudMessage): CloudContact | undefined {
  return (
    contacts.find((c) => !!message.from_user_id && c.user_id === message.from_user_id) ??
    contacts.find((c) => !!message.from && c.wa_id === message.from)
  );
}

/** An echo's customer entry in `contacts`: by BSUID, else by number. */
function recipientOf(contacts: CloudContact[], echo: CloudMessage): CloudContact | undefined {
  return contacts.find((c) => !!echo.to_user_id && c.user_id === echo.to_user_id) ?? contacts.find((c) => !!echo.to && c.wa_id === echo.to);
}

/** An echo names the customer it went to (`to`, `to_user_id`): the contact its event belongs to. */
function echoedTo(echo: CloudMessage, contacts: CloudContact[]): Partial<InboundMessage> {
  const contact = recipientOf(contacts, echo);
  return {
    fromNumber: phoneOf(echo.to ?? contact?.wa_id),
    fromUserId: text(echo.to_user_id) ?? text(contact?.user_id),
    fromParentUserId: text(echo.to_parent_user_id) ?? text(contact?.parent_user_id),
  };
}

/** An `edit` or `revoke` of an earlier message; null for any other message (or one naming no original). */
function readMessageChange(m: CloudMessage, read: InboundMessage): MessageChange | null {
  if (m.type !== 'edit' && m.type !== 'revoke') return null;
  const originalMessageId = text(m.type === 'edit' ? m.edit?.original_message_id : m.revoke?.original_message_id);
  if (!originalMessageId) return null;
  const replacement =
    m.type === 'edit' && m.edit?.message && typeof m.edit.message === 'object'
      ? readMessage({ ...m.edit.message, id: m.id, timestamp: m.timestamp, from: m.from }, undefined)
      : undefined;
  return {
    kind: m.type,
    providerMessageId: m.id,
    originalMessageId,
    at: read.receivedAt,
    ...(replacement && replacement.type !== 'unsupported' ? { replacement } : {}),
    unmatched: { ...read, type: 'unsupported', text: '', raw: m as unknown as Record<string, unknown> },
  };
}

function readMessage(m: CloudMessage, contact: CloudContact | undefined): InboundMessage {
  const base: InboundMessage = {
    providerMessageId: m.id,
    type: 'unsupported',
    receivedAt: seconds(m.timestamp),
    fromNumber: phoneOf(m.from ?? contact?.wa_id),
    fromUserId: text(m.from_user_id) ?? text(contact?.user_id),
    fromParentUserId: text(m.from_parent_user_id) ?? text(contact?.parent_user_id),
    username: text(contact?.profile?.username),
    profileName: text(contact?.profile?.name),
    ...(m.context?.id ? { replyToMessageId: m.context.id } : {}),
    ...messageDetails(m),
  };
  switch (m.type) {
    case 'text':
      if (m.text) return { ...base, type: 'text', text: m.text.body };
      break;
    case 'image':
    case 'video':
    case 'audio':
    case 'document':
    case 'sticker': {
      const media = m[m.type];
      if (media?.id)
        return {
          ...base,
          type: m.type,
          media: {
            providerMediaId: media.id,
            mimeType: text(media.mime_type),
            sha256: text(media.sha256),
            fileName: text(media.filename),
            caption: text(media.caption),
            ...(media.voice !== undefined ? { voice: media.voice } : {}),
            ...(media.animated !== undefined ? { animated: media.animated } : {}),
          },
        };
      break;
    }
    case 'location':
      if (m.location) {
        const latitude = Number(m.location.latitude);
        const longitude = Number(m.location.longitude);
        if (Number.isFinite(latitude) && Number.isFinite(longitude))
          return {
            ...base,
            type: 'location',
            location: { latitude, longitude, name: text(m.location.name), address: text(m.location.address), url: text(m.location.url) },
          };
      }
      break;
    case 'contacts':
      if (m.contacts) return { ...base, type: 'contacts', contacts: m.contacts.map(readSharedContact) };
      break;
    case 'button':
      if (m.button) return { ...base, type: 'button', text: m.button.text, payload: m.button.payload };
      break;
    case 'interactive': {
      const reply = m.interactive?.button_reply ?? m.interactive?.list_reply;
      if (reply) return { ...base, type: 'interactive', text: reply.title, payload: reply.id };
      const flow = m.interactive?.nfm_reply;
      if (flow) return { ...base, type: 'interactive', text: flow.body ?? flow.name ?? '', payload: flow.response_json ?? '' };
      const permission = m.interactive?.call_permission_reply;
      if (permission && (permission.response === 'accept' || permission.response === 'reject')) {
        const granted = permission.response === 'accept';
        const expires = Number(permission.expiration_timestamp);
        return {
          ...base,
          type: 'interactive',
          text: granted ? 'Call permission granted' : 'Call permission declined',
          payload: permission.response,
          callPermissionReply: {
            granted,
            permanent: granted && permission.is_permanent === true,
            expiresAt: granted && Number.isFinite(expires) && expires > 0 ? new Date(expires * 1000).toISOString() : null,
          },
        };
      }
      break;
    }
    case 'reaction':
      if (m.reaction?.message_id)
        return { ...base, type: 'reaction', reaction: { messageId: m.reaction.message_id, emoji: m.reaction.emoji ?? '' } };
      break;
  }
  // order, system, unsupported, and any type (or shape) this version does not know: kept as it came.
  return { ...base, type: 'unsupported', text: m.system?.body ?? m.order?.text ?? '', raw: m as unknown as Record<string, unknown> };
}

/** Attribution and forwarding: only what the message carries, so a job's payload stays as small as before. */
function messageDetails(m: CloudMessage): Partial<InboundMessage> {
  const details: Partial<InboundMessage> = {};
  if (m.referral && typeof m.referral === 'object') details.referral = readReferral(m.referral);
  const product = m.context?.referred_product;
  if (product && typeof product === 'object') {
    details.referredProduct = { catalogId: text(product.catalog_id), productRetailerId: text(product.product_retailer_id) };
  }
  if (m.context?.forwarded === true) details.forwarded = true;
  if (m.context?.frequently_forwarded === true) details.frequentlyForwarded = true;
  return details;
}

function readReferral(r: CloudReferral): ReferralInfo {
  return {
    sourceUrl: text(r.source_url),
    sourceId: text(r.source_id),
    sourceType: text(r.source_type),
    headline: text(r.headline),
    body: text(r.body),
    mediaType: text(r.media_type),
    imageUrl: text(r.image_url),
    videoUrl: text(r.video_url),
    thumbnailUrl: text(r.thumbnail_url),
    ctwaClid: text(r.ctwa_clid),
    welcomeMessage: text(r.welcome_message?.text),
  };
}

function readSharedContact(card: CloudSharedContact): SharedContact {
  const name = card.name ?? {};
  return {
    name: {
      formattedName: name.formatted_name ?? [name.first_name, name.last_name].filter(Boolean).join(' '),
      firstName: text(name.first_name),
      lastName: text(name.last_name),
      middleName: text(name.middle_name),
      prefix: text(name.prefix),
      suffix: text(name.suffix),
    },
    phones: (card.phones ?? []).map((p) => ({ phone: text(p.phone), waId: text(p.wa_id), type: text(p.type) })),
    emails: (card.emails ?? []).map((e) => ({ email: text(e.email), type: text(e.type) })),
    org: card.org ? { company: text(card.org.company), department: text(card.org.department), title: text(card.org.title) } : null,
    addresses: (card.addresses ?? []).map((a) => ({
      street: text(a.street),
      city: text(a.city),
      state: text(a.state),
      zip: text(a.zip),
      country: text(a.country),
      countryCode: text(a.country_code),
      type: text(a.type),
    })),
    urls: (card.urls ?? []).map((u) => ({ url: text(u.url), type: text(u.type) })),
    birthday: text(card.birthday),
  };
}

/** `user_changed_number` / `user_changed_user_id` system messages: the sender's new identifiers. */
function readSystemIdentity(m: CloudMessage): IdentityUpdate | null {
  const system = m.system;
  if (!system || (system.type !== 'user_changed_number' && system.type !== 'user_changed_user_id')) return null;
  const update: IdentityUpdate = {
    previousUserId: text(system.previous_user_id) ?? text(m.from_user_id),
    previousNumber: phoneOf(m.from),
    userId: text(system.user_id),
    parentUserId: text(system.parent_user_id),
    phoneNumber: phoneOf(system.wa_id),
  };
  return update.previousUserId || update.previousNumber ? update : null;
}

/** A `user_preferences` entry about marketing messages (`stop` or `resume`); null for anything else or no user. */
function readPreference(p: CloudUserPreference, contacts: CloudContact[]): MarketingPreference | null {
  if (p?.category !== 'marketing_messages' || (p.value !== 'stop' && p.value !== 'resume')) return null;
  const contact = contacts.find((c) => (!!p.user_id && c.user_id === p.user_id) || (!!p.wa_id && c.wa_id === p.wa_id));
  const preference: MarketingPreference = {
    phoneNumber: phoneOf(text(p.wa_id) ?? undefined),
    userId: text(p.user_id) ?? text(contact?.user_id),
    parentUserId: text(p.parent_user_id) ?? text(contact?.parent_user_id),
    profileName: text(contact?.profile?.name),
    status: p.value === 'stop' ? 'OptedOut' : 'OptedIn',
    at: seconds(p.timestamp === undefined ? undefined : String(p.timestamp)),
  };
  return preference.phoneNumber || preference.userId ? preference : null;
}

function readUserIdUpdate(update: CloudUserIdUpdate): IdentityUpdate {
  return {
    previousUserId: text(update.user_id?.previous),
    previousNumber: phoneOf(update.wa_id),
    userId: text(update.user_id?.current),
    parentUserId: text(update.parent_user_id?.current),
    phoneNumber: null,
  };
}

function readStatus(s: CloudStatus, contacts: CloudContact[]): StatusUpdate | null {
  const status = STATUS[s.status];
  if (!status) return null;
  const error = s.errors?.[0];
  const meaning = error || status === 'Failed' ? describeCloudError(null, error?.code, errorText(error)) : undefined;
  const contact = contacts.find((c) => !!s.recipient_id && c.wa_id === s.recipient_id);
  return {
    providerMessageId: s.id,
    status,
    at: seconds(s.timestamp),
    errorCode: meaning?.errorCode ?? null,
    errorReason: meaning?.failureReason ?? null,
    ...(s.pricing ? { isBillable: isBillable(s.pricing), pricingCategory: text(s.pricing.category), pricing: readPricing(s.pricing) } : {}),
    recipientUserId: text(s.recipient_user_id) ?? text(contact?.user_id),
  };
}

/** A status notification as the Cloud API sends it (the sandbox produces these for its own messages). */
export function statusNotification(
  providerMessageId: string,
  status: 'sent' | 'delivered' | 'read',
  recipient: { to?: string; recipient?: string },
  pricing?: CloudStatus['pricing'],
): CloudWebhookNotification {
  // A message sent to a phone number is reported with `recipient_id`; one sent to a BSUID with `recipient_user_id`.
  const addressed = recipient.to ? { recipient_id: recipient.to } : { recipient_user_id: recipient.recipient };
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        changes: [
          {
            field: 'messages',
            value: {
              statuses: [
                {
                  id: providerMessageId,
                  status,
                  timestamp: String(Math.floor(Date.now() / 1000)),
                  ...addressed,
                  ...(pricing ? { pricing } : {}),
                },
              ],
            },
          },
        ],
      },
    ],
  };
}

/**
 * A `user_preferences` notification as the Cloud API sends it (the sandbox plays these): the user
 * stopped (`stop`) or resumed (`resume`) marketing messages.
 */
export function userPreferencesNotification(
  user: { phoneNumber?: string | null; userId?: string | null },
  value: 'stop' | 'resume',
): CloudWebhookNotification {
  const waId = user.phoneNumber ? { wa_id: user.phoneNumber.replace(/^\+/, '') } : {};
  const userId = user.userId ? { user_id: user.userId } : {};
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        changes: [
          {
            field: 'user_preferences',
            value: {
              contacts: [{ ...waId, ...userId }],
              user_preferences: [
                {
                  ...waId,
                  ...userId,
                  detail: value === 'stop' ? 'User requested to stop marketing messages' : 'User requested to resume marketing messages',
                  category: 'marketing_messages',
                  value,
                  timestamp: String(Math.floor(Date.now() / 1000)),
                },
              ],
            },
          },
        ],
      },
    ],
  };
}
