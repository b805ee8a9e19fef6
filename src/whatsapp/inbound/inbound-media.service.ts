import { Injectable, Logger } from '@nestjs/common';
import type { Channel } from '../../channels/channel.entity.js';
import { ChannelsService } from '../../channels/channels.service.js';
import { NotFoundError } from '../../common/errors/domain-error.js';
import { MessageEvents } from '../../conversations/message-events.service.js';
import type { DownloadMediaPayload } from '../../queue/job-payloads.js';
import { Outbox } from '../../queue/outbox.service.js';
import { RetryLaterError } from '../../queue/retry-later.js';
import type { MediaType } from '../../storage/media-file.entity.js';
import { MediaStorage, type StoredMedia } from '../../storage/media-storage.js';
import { removeQuietly, StoragePaths } from '../../storage/storage-paths.js';
import { isStorageUnavailable, STORAGE_UNAVAILABLE } from '../../storage/storage.errors.js';
import { WebhookKind } from '../../webhooks/webhook-kind.js';
import { WebhookPublisher } from '../../webhooks/webhook-publisher.js';
import type { MediaKind } from './inbound-message.js';
import type { WhatsAppMessageWebhookPayload } from '../message-webhook.js';
import { CloudApiWhatsAppProvider, type MediaFetch } from '../providers/cloud-api.provider.js';
import { inTransaction } from '../../database/transactions.js';

/** The largest inbound file kept (API.md §7.1): Meta refuses larger uploads anyway. */
export const INBOUND_MEDIA_MAX_BYTES = 100 * 1024 * 1024;

export const MEDIA_HASH_MISMATCH = 'WhatsApp:MediaHashMismatch';

/** How a message's file is filed in `media_files`. */
const MEDIA_TYPE: Record<MediaKind, MediaType> = { image: 'image', sticker: 'image', video: 'video', audio: 'audio', document: 'document' };

/** File name extensions of the types WhatsApp carries (Meta's supported media types), for files that come without a name. */
const EXTENSIONS: Record<string, string> = {
  'audio/aac': 'aac',
  'audio/amr': 'amr',
  'audio/mpeg': 'mp3',
  'audio/mp4': 'm4a',
  'audio/ogg': 'ogg',
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'video/mp4': 'mp4',
  'video/3gpp': '3gp',
  'video/3gp': '3gp',
  'text/plain': 'txt',
  'application/pdf': 'pdf',
  'application/msword': 'doc',
  'application/vnd.ms-excel': 'xls',
  'application/vnd.ms-powerpoint': 'ppt',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': 'pptx',
};

/** The name a file is stored under: the sender's for documents, else the kind and the message's id. */
export function inboundFileName(kind: MediaKind, given: string | null, mimeType: string | null, mediaId: string): string {
  if (given) return given;
  const extension = EXTENSIONS[(mimeType ?? '').split(';')[0].trim().toLowerCase()];
  return `${kind}-${mediaId}${extension ? `.${extension}` : ''}`;
}

/** Meta gives a file's SHA-256 in hex (`GET /{media-id}`) or base64 (some notifications): either matches. */
export function sameSha256(digest: Buffer, expected: string): boolean {
  const given = expected.trim();
  return given.toLowerCase() === digest.toString('hex') || given === digest.toString('base64') || given === digest.toString('base64url');
}

/** What the timeline's attachment and the webhook say about a settled file. */
interface Settlement {
  stored: StoredMedia | null;
  errorCode: string | null;
  errorReason: string | null;
}

/**
 * Inbound files: the worker fetches each from the Graph API (streamed to a temp file, checked
 * against its SHA-256), stores it like an upload, fills the timeline event's attachment and sends
 * the message's webhook, once. Passing failures are retried; after the last attempt the webhook
 * goes out with `mediaUrl: null` and the error.
 */
@Injectable()
export class InboundMediaService {
  private readonly logger = new Logger(InboundMediaService.name);

  constructor(
    private readonly events: MessageEvents,
    private readonly channels: ChannelsService,
    private readonly cloudApi: CloudApiWhatsAppProvider,
    private readonly storage: MediaStorage,
    private readonly paths: StoragePaths,
    private readonly webhooks: WebhookPublisher,
    private readonly outbox: Outbox,
  ) {}

  async download(workspaceId: string, job: DownloadMediaPayload, lastAttempt: boolean): Promise<void> {
    if ((await this.events.mediaStatusOf(workspaceId, job.eventId)) !== 'Pending') return; // settled by an earlier run, or gone
    const channel = await this.channels.getRecent(workspaceId, job.channelId).catch((err: unknown) => {
      if (err instanceof NotFoundError) return null;
      throw err;
    });
    if (channel?.whatsAppProvider !== 'cloud-api') {
      await this.settle(workspaceId, channel, job, {
        stored: null,
        errorCode: 'Channels:ChannelNotFound',
        errorReason: 'The channel was deleted or no longer reaches the WhatsApp Cloud API.',
      });
      return;
    }
    const temp = this.paths.tempFile();
    try {
      const outcome = this.checked(await this.cloudApi.fetchMedia(channel, job.media.providerMediaId, temp, INBOUND_MEDIA_MAX_BYTES), job);
      if (outcome.kind === 'fetched') {
        const stored = await this.store(workspaceId, job, outcome, temp, lastAttempt);
        if (!stored) {
          this.logger.warn(`Inbound media of event ${job.eventId} not stored: media storage did not answer on the last attempt`);
          await this.settle(workspaceId, channel, job, {
            stored: null,
            errorCode: STORAGE_UNAVAILABLE,
            errorReason: 'The file was fetched but media storage did not answer.',
          });
          return;
        }
        if (!(await this.settle(workspaceId, channel, job, { stored, errorCode: null, errorReason: null }))) {
          await this.storage.discard(workspaceId, stored.id); // another run settled it meanwhile
        }
        return;
      }
      if (outcome.kind === 'retry' && !lastAttempt) throw new RetryLaterError(`${outcome.errorCode}: ${outcome.failureReason}`);
      this.logger.warn(`Inbound media of event ${job.eventId} not stored: ${outcome.errorCode} ${outcome.failureReason}`);
      await this.settle(workspaceId, channel, job, { stored: null, errorCode: outcome.errorCode, errorReason: outcome.failureReason });
    } finally {
      await removeQuietly(temp);
    }
  }

  /** Stores the fetched file; null when storage does not answer on the last attempt (earlier ones are retried). */
  private async store(
    workspaceId: string,
    job: DownloadMediaPayload,
    outcome: Extract<MediaFetch, { kind: 'fetched' }>,
    temp: string,
    lastAttempt: boolean,
  ): Promise<StoredMedia | null> {
    try {
      return await this.storage.save(
        workspaceId,
        { path: temp, move: true },
        {
          fileName: inboundFileName(job.media.kind, job.media.fileName, outcome.mimeType, job.media.providerMediaId),
          contentType: (outcome.mimeType ?? job.media.mimeType ?? 'application/octet-stream').slice(0, 100),
          mediaType: MEDIA_TYPE[job.media.kind],
          durationMs: null,
        },
      );
    } catch (err) {
      if (lastAttempt && isStorageUnavailable(err)) return null;
      throw err;
    }
  }

  /** A fetched file whose bytes do not hash to what the provider announced is a passing failure (fetched again). */
  private checked(outcome: MediaFetch, job: DownloadMediaPayload): MediaFetch {
    if (outcome.kind !== 'fetched') return outcome;
    const expected = outcome.expectedSha256 ?? job.media.sha256;
    if (!expected || sameSha256(outcome.sha256, expected)) return outcome;
    return {
      kind: 'retry',
      errorCode: MEDIA_HASH_MISMATCH,
      failureReason: `The downloaded file (${outcome.size} bytes) does not match the SHA-256 the provider announced.`,
    };
  }

  /**
   * Fills the event's attachment and publishes the message's webhook in one transaction, unless
   * another run settled the file first (then nothing changes). Returns whether this call settled it.
   */
  private settle(
    workspaceId: string,
    channel: Readonly<Channel> | null,
    job: DownloadMediaPayload,
    settlement: Settlement,
  ): Promise<boolean> {
    const { stored, errorCode, errorReason } = settlement;
    const patch = stored
      ? {
          mediaStatus: 'Stored',
          mediaUrl: stored.url,
          mediaFileId: stored.id,
          mimeType: stored.contentType,
          fileName: job.media.fileName ?? stored.fileName,
          size: stored.size,
        }
      : { mediaStatus: 'Failed', errorCode, errorReason };
    return inTransaction(async () => {
      const settled = await this.events.settleMedia(workspaceId, job.eventId, patch, stored ? String(stored.size) : null);
      if (!settled) return false;
      if (channel) {
        const payload: WhatsAppMessageWebhookPayload = stored
          ? {
              ...job.webhook,
              mediaUrl: stored.url,
              mimeType: stored.contentType,
              fileName: job.media.fileName ?? stored.fileName,
              size: stored.size,
            }
          : { ...job.webhook, mediaUrl: null, errorCode, errorReason };
        await this.webhooks.publish([
          { workspaceId, kind: WebhookKind.WhatsAppMessage, targetUrl: channel.webhookUrl ?? null, payload: { ...payload } },
        ]);
      }
      return true;
    });
  }
}
