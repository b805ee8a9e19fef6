/**
 * What WhatsApp says about a message beyond its content (API.md §14): the ad or post that started
 * the chat, the product asked about, forwarding, edits and deletions, and who sent it from the
 * business's side. Kept on the timeline event, and the first referral on the conversation too.
 */

/** A click-to-WhatsApp ad or post the customer came from (Meta's `referral`, in camelCase). */
export interface ReferralInfo {
  sourceUrl: string | null;
  sourceId: string | null;
  /** `ad` or `post`. */
  sourceType: string | null;
  headline: string | null;
  body: string | null;
  /** `image` or `video`. */
  mediaType: string | null;
  imageUrl: string | null;
  videoUrl: string | null;
  thumbnailUrl: string | null;
  /** The click id Meta's Conversions API takes back. */
  ctwaClid: string | null;
  /** The ad's welcome message, when it had one. */
  welcomeMessage: string | null;
}

/** A catalog product the customer asked about (Meta's `context.referred_product`). */
export interface ReferredProductInfo {
  catalogId: string | null;
  productRetailerId: string | null;
}

/** One earlier version of an edited message. */
export interface EditedVersion {
  /** The body before this edit. */
  body: string | null;
  /** When the edit that replaced it was made (ISO 8601 UTC). */
  editedAt: string;
}

/** As stored: with the provider's id of the edit, so a redelivered edit is applied once. */
export interface StoredEditedVersion extends EditedVersion {
  editId: string;
}

/** The edit history as the API shows it (without the provider's ids of the edits). */
export function editHistoryOf(history: readonly EditedVersion[] | null): EditedVersion[] | null {
  return history && history.map(({ body, editedAt }) => ({ body, editedAt }));
}

/** Who wrote an outbound message: this API, or the business in the WhatsApp Business app on a shared number. */
export const MESSAGE_SOURCES = ['Api', 'BusinessApp'] as const;
export type MessageSource = (typeof MESSAGE_SOURCES)[number];

/** A reply's quoted message: our event when we stored it, and the provider's id in any case. */
export interface ReplyInfo {
  repliedToEventId: string | null;
  repliedToBody: string | null;
  repliedToProviderMessageId?: string | null;
}

/** The fields a message's details add to its timeline entry and its webhook, as both show them. */
export interface MessageDetailsView {
  referral: ReferralInfo | null;
  referredProduct: ReferredProductInfo | null;
  forwarded: boolean;
  frequentlyForwarded: boolean;
  editHistory: EditedVersion[] | null;
  /** ISO 8601 UTC. */
  revokedAt: string | null;
  source: MessageSource | null;
}

/** What the timeline and the webhook show of an event's details; `outboundWhatsApp` events are ours (`Api`) unless marked. */
export function messageDetailsView(
  event: {
    referral: ReferralInfo | null;
    referredProduct: ReferredProductInfo | null;
    forwarded: boolean | null;
    frequentlyForwarded: boolean | null;
    editHistory: readonly EditedVersion[] | null;
    revokedAt: Date | null;
    source: MessageSource | null;
  },
  outboundWhatsApp: boolean,
): MessageDetailsView {
  return {
    referral: event.referral,
    referredProduct: event.referredProduct,
    forwarded: event.forwarded ?? false,
    frequentlyForwarded: event.frequentlyForwarded ?? false,
    editHistory: editHistoryOf(event.editHistory),
    revokedAt: event.revokedAt && event.revokedAt.toISOString(),
    source: event.source ?? (outboundWhatsApp ? 'Api' : null),
  };
}
