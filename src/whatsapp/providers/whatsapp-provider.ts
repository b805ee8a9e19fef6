import type { Channel } from '../../channels/channel.entity.js';

export type SendOutcome =
  | { kind: 'sent'; providerMessageId: string }
  | { kind: 'failed'; errorCode: string; failureReason: string }
  /** A passing failure (429, 5xx, a rate-limit or transient code, no answer): tried again after a backoff, at least `retryAfterMs`. */
  | { kind: 'retry'; errorCode: string; failureReason: string; retryAfterMs?: number };

/** One WhatsApp provider, chosen per channel (`sandbox` or `cloud-api`). */
export interface WhatsAppProvider {
  send(channel: Readonly<Channel>, request: Record<string, unknown>): Promise<SendOutcome>;
}
