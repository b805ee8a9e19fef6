import type { Channel } from '../../channels/channel.entity.js';

export type SendOutcome =
  | { kind: 'sent'; providerMessageId: string }
  | { kind: 'failed'; errorCode: string; failureReason: string }
  /** A passing failure (429, 5xx, network): the job is retried with backoff. */
  | { kind: 'retry'; reason: string; retryAfterMs?: number };

/** One WhatsApp provider, chosen per channel (`sandbox` or `cloud-api`). */
export interface WhatsAppProvider {
  send(channel: Channel, request: Record<string, unknown>): Promise<SendOutcome>;
}
