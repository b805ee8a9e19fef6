import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { components, webhooks } from './schema.js';

export { WebhookVerificationError };
export type OutboundIvrWebhookPayload = components['schemas']['OutboundIvrWebhookPayload'];

/** Every event type of the service's catalog (the `webhook-event` header), from the document's `webhooks`. */
export type WebhookEventType = keyof webhooks;

/** The body an endpoint receives for each event type: `{ type, timestamp, workspaceId, data }`. */
export type WebhookEnvelopes = { [T in WebhookEventType]: webhooks[T]['post']['requestBody']['content']['application/json'] };

/** The `data` of each event type: `WebhookPayloads['whatsapp.message']` is the WhatsApp Message Webhook. */
export type WebhookPayloads = { [T in WebhookEventType]: WebhookEnvelopes[T]['data'] };

interface VerifiedEvent<T extends WebhookEventType> {
  /** `webhook-id`: the same on every attempt of one event (deduplicate on it). */
  id: string;
  /** `webhook-event`. */
  eventType: T;
  /** `webhook-timestamp`: when this attempt was signed. */
  timestamp: Date;
  /** The event's data, whichever way it came: the body a channel's or a request's own URL receives, the envelope's `data` for an endpoint. */
  payload: WebhookPayloads[T];
  /** The whole body an endpoint (POST /v1/webhook-endpoints) receives; undefined at a channel's or a request's own URL. */
  envelope: WebhookEnvelopes[T] | undefined;
}

/**
 * A verified event: a union discriminated by `eventType`, so that
 * `if (event.eventType === 'whatsapp.message') event.payload.status` is typed.
 */
export type VerifiedWebhook = { [T in WebhookEventType]: VerifiedEvent<T> }[WebhookEventType];

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const value = headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** An endpoint's envelope names its type and carries `data`; a channel's or a request's URL gets the data alone. */
function isEnvelope(body: Record<string, unknown>, eventType: string): boolean {
  return body.type === eventType && isObject(body.data) && typeof body.workspaceId === 'string';
}

/**
 * Checks a webhook's Standard Webhooks signature (HMAC-SHA256 over `id.timestamp.body`, timestamp
 * within five minutes) against a `whsec_` secret, or any of several during a rotation, and answers
 * the typed event. Pass the body exactly as received. Throws WebhookVerificationError, also for a
 * delivery without a `webhook-event` header.
 *
 * An event type newer than this client comes through as it was sent: it matches none of the
 * `eventType` cases you check, so handle the types you know and answer 2xx to the rest.
 */
export function verifyWebhook(secrets: string | string[], rawBody: string, headers: HeaderSource): VerifiedWebhook {
  const signed = {
    'webhook-id': header(headers, 'webhook-id') ?? '',
    'webhook-timestamp': header(headers, 'webhook-timestamp') ?? '',
    'webhook-signature': header(headers, 'webhook-signature') ?? '',
  };
  let lastError: unknown;
  for (const secret of Array.isArray(secrets) ? secrets : [secrets]) {
    let body: unknown;
    try {
      body = new Webhook(secret).verify(rawBody, signed);
    } catch (err) {
      lastError = err;
      continue;
    }
    const eventType = header(headers, 'webhook-event');
    if (!eventType) throw new WebhookVerificationError('Missing webhook-event header');
    if (!isObject(body)) throw new WebhookVerificationError('Payload is not an object');
    const envelope = isEnvelope(body, eventType) ? body : undefined;
    // The service signed this body as an event of `eventType`: its shape is that type's.
    return {
      id: signed['webhook-id'],
      eventType,
      timestamp: new Date(Number(signed['webhook-timestamp']) * 1000),
      payload: envelope ? envelope.data : body,
      envelope,
    } as VerifiedWebhook;
  }
  throw lastError instanceof Error ? lastError : new WebhookVerificationError('No secret given');
}
