import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { components } from './schema.js';

export { WebhookVerificationError };
export type OutboundIvrWebhookPayload = components['schemas']['OutboundIvrWebhookPayload'];

export interface VerifiedWebhook {
  /** `webhook-id`: the same on every attempt of one event (deduplicate on it). */
  id: string;
  /** `webhook-event`: `whatsapp.message`, `call`, `outbound_ivr.completed`, … */
  eventType: string | undefined;
  timestamp: Date;
  payload: Record<string, unknown>;
}

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const value = headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Checks a webhook's Standard Webhooks signature (HMAC-SHA256 over `id.timestamp.body`, timestamp
 * within five minutes) against the workspace's `whsec_` secret, or any of several during a rotation,
 * and answers the parsed event. Pass the body exactly as received. Throws WebhookVerificationError.
 */
export function verifyWebhook(secrets: string | string[], rawBody: string, headers: HeaderSource): VerifiedWebhook {
  const signed = {
    'webhook-id': header(headers, 'webhook-id') ?? '',
    'webhook-timestamp': header(headers, 'webhook-timestamp') ?? '',
    'webhook-signature': header(headers, 'webhook-signature') ?? '',
  };
  let lastError: unknown;
  for (const secret of Array.isArray(secrets) ? secrets : [secrets]) {
    try {
      const payload: unknown = new Webhook(secret).verify(rawBody, signed);
      if (typeof payload !== 'object' || payload === null || Array.isArray(payload))
        throw new WebhookVerificationError('Payload is not an object');
      return {
        id: signed['webhook-id'],
        eventType: header(headers, 'webhook-event'),
        timestamp: new Date(Number(signed['webhook-timestamp']) * 1000),
        payload: Object.fromEntries(Object.entries(payload)),
      };
    } catch (err) {
      lastError = err;
    }
  }
  throw lastError instanceof Error ? lastError : new WebhookVerificationError('No secret given');
}
