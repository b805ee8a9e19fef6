import type { Readable } from 'node:stream';
import type { Channel } from '../../channels/channel.entity.js';

/** A provider call that did not work: for good, or for now (429, 5xx, a rate-limit or transient code, no answer). */
export type ProviderFailure =
  | { kind: 'failed'; errorCode: string; failureReason: string }
  /** Tried again after a backoff, at least `retryAfterMs`; `cloudErrorCode` is the Cloud API's `error.code` (the governor backs off on 130429 and 131056). */
  | { kind: 'retry'; errorCode: string; failureReason: string; retryAfterMs?: number; cloudErrorCode?: number };

export type SendOutcome = { kind: 'sent'; providerMessageId: string } | ProviderFailure;

/** A send's final answer (sent, or failed for good): what the message's status records. */
export type FinalSendOutcome = Exclude<SendOutcome, { kind: 'retry' }>;

/** Mark As Read: the provider took it. */
export type MarkReadOutcome = { kind: 'done' } | ProviderFailure;

/** A media upload: the provider's id of the uploaded file. */
export type UploadOutcome = { kind: 'uploaded'; providerMediaId: string } | ProviderFailure;

/** A file to upload, streamed: its bytes, size and what it is. */
export interface MediaUpload {
  stream: Readable;
  size: number;
  contentType: string;
  fileName: string;
}

/** One WhatsApp provider, chosen per channel (`sandbox` or `cloud-api`). */
export interface WhatsAppProvider {
  /** `POST /{phone-number-id}/messages` with a message. */
  send(channel: Readonly<Channel>, request: Record<string, unknown>): Promise<SendOutcome>;
  /** `POST /{phone-number-id}/messages` with `{ status: "read", message_id, typing_indicator? }`. */
  markRead(channel: Readonly<Channel>, request: Record<string, unknown>): Promise<MarkReadOutcome>;
  /** `POST /{phone-number-id}/media` (multipart): the id to send the file by. */
  uploadMedia(channel: Readonly<Channel>, media: MediaUpload): Promise<UploadOutcome>;
}
