import { createHmac, timingSafeEqual } from 'node:crypto';
import { toE164 } from '../common/phone/phone-number.js';
import type { InboundMessage } from './inbound.service.js';
import { describeCloudError } from './providers/cloud-api-errors.js';

/** The parts of a WhatsApp Cloud API webhook notification this service reads. */
export interface CloudWebhookNotification {
  object?: string;
  entry?: Array<{
    changes?: Array<{
      field?: string;
      value?: {
        messages?: Array<{
          from: string;
          id: string;
          timestamp: string;
          type: string;
          text?: { body: string };
          button?: { payload: string; text: string };
          interactive?: { type: string; button_reply?: { id: string; title: string }; list_reply?: { id: string; title: string } };
          context?: { id?: string };
          image?: { caption?: string };
          video?: { caption?: string };
          document?: { caption?: string; filename?: string };
          location?: { latitude: number; longitude: number; name?: string; address?: string };
        }>;
        statuses?: Array<{
          id: string;
          status: string;
          timestamp: string;
          recipient_id?: string;
          errors?: CloudError[];
        }>;
      };
    }>;
  }>;
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
}

/** `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body with the app secret>`, compared in constant time. */
export function validHubSignature(rawBody: Buffer, header: string | undefined, appSecret: string | null): boolean {
  if (!header || !appSecret || !header.startsWith('sha256=')) return false;
  const expected = createHmac('sha256', appSecret).update(rawBody).digest();
  const given = Buffer.from(header.slice('sha256='.length), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const STATUS: Record<string, StatusUpdate['status']> = { sent: 'Sent', delivered: 'Delivered', read: 'Read', failed: 'Failed' };

/** Splits a notification into inbound messages and status updates, in provider-neutral form. */
export function readNotification(notification: CloudWebhookNotification): { messages: InboundMessage[]; statuses: StatusUpdate[] } {
  const values = (notification.entry ?? [])
    .flatMap((e) => e.changes ?? [])
    .filter((c) => c.field === 'messages')
    .map((c) => c.value ?? {});
  const messages = values
    .flatMap((v) => v.messages ?? [])
    .map((m): InboundMessage => {
      const at = new Date(Number(m.timestamp) * 1000).toISOString();
      // `from` is the WhatsApp id: digits of the international number, without the +.
      const base = { providerMessageId: m.id, fromNumber: toE164(m.from) ?? `+${m.from}`, receivedAt: at, replyToMessageId: m.context?.id };
      if (m.type === 'button' && m.button) return { ...base, type: 'button', text: m.button.text, payload: m.button.payload };
      const reply = m.interactive?.button_reply ?? m.interactive?.list_reply;
      if (m.type === 'interactive' && reply) return { ...base, type: 'interactive', text: reply.title, payload: reply.id };
      const text =
        m.text?.body ??
        m.image?.caption ??
        m.video?.caption ??
        m.document?.caption ??
        m.document?.filename ??
        (m.location ? `${m.location.latitude},${m.location.longitude}` : `[${m.type}]`);
      return { ...base, type: 'text', text };
    });
  const statuses = values
    .flatMap((v) => v.statuses ?? [])
    .filter((s) => STATUS[s.status])
    .map((s) => {
      const error = s.errors?.[0];
      const meaning = error || STATUS[s.status] === 'Failed' ? describeCloudError(null, error?.code, errorText(error)) : undefined;
      return {
        providerMessageId: s.id,
        status: STATUS[s.status],
        at: new Date(Number(s.timestamp) * 1000).toISOString(),
        errorCode: meaning?.errorCode ?? null,
        errorReason: meaning?.failureReason ?? null,
      };
    });
  return { messages, statuses };
}

/** A status notification as the Cloud API sends it (the sandbox produces these for its own messages). */
export function statusNotification(
  providerMessageId: string,
  status: 'sent' | 'delivered' | 'read',
  recipient: string,
): CloudWebhookNotification {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        changes: [
          {
            field: 'messages',
            value: {
              statuses: [{ id: providerMessageId, status, timestamp: String(Math.floor(Date.now() / 1000)), recipient_id: recipient }],
            },
          },
        ],
      },
    ],
  };
}
