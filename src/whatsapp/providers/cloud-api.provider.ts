import { Injectable } from '@nestjs/common';
import type { Channel } from '../../channels/channel.entity.js';
import { ChannelsService } from '../../channels/channels.service.js';
import { AppConfig } from '../../config/app-config.js';
import { parseRetryAfter } from '../../webhooks/webhook-sender.js';
import type { SendOutcome, WhatsAppProvider } from './whatsapp-provider.js';
import type { GraphTemplatePage } from '../templates.service.js';
import { ValidationError } from '../../common/errors/domain-error.js';
import { describeCloudError, unreachable } from './cloud-api-errors.js';
import { errorText, type CloudError } from '../cloud-webhook.js';
import { DownloadTooLargeError, graphDownload, graphRequest, GraphUnreachableError, type GraphResponse } from './graph-http.js';

/** What fetching a message's file from the Graph API came to. */
export type MediaFetch =
  | { kind: 'fetched'; size: number; sha256: Buffer; mimeType: string | null; expectedSha256: string | null }
  /** `retry`: a passing failure (Graph 5xx or 429, no answer, a refused download URL); `failed`: trying again cannot help. */
  | { kind: 'retry' | 'failed'; errorCode: string; failureReason: string };

/** The Graph API's description of a media object (`GET /{media-id}`). */
interface GraphMedia {
  url?: string;
  mime_type?: string;
  sha256?: string;
  file_size?: string | number;
  id?: string;
  error?: CloudError;
}

export const MEDIA_DOWNLOAD_FAILED = 'WhatsApp:MediaDownloadFailed';
export const MEDIA_TOO_LARGE = 'WhatsApp:MediaTooLarge';

const TemplateSyncFailed = (message: string) => new ValidationError('WhatsApp:TemplateSyncFailed', message);

/** The WhatsApp Cloud API: `POST {WHATSAPP_GRAPH_URL}/{phone-number-id}/messages` with the channel's own token. */
@Injectable()
export class CloudApiWhatsAppProvider implements WhatsAppProvider {
  constructor(
    private readonly config: AppConfig,
    private readonly channels: ChannelsService,
  ) {}

  /** The first page URL of the account's templates, and a reader for any page URL (the cursor's `next`). */
  templatePages(channel: Readonly<Channel>): { firstUrl: string; fetchPage: (url: string) => Promise<GraphTemplatePage> } {
    const { accessToken } = this.channels.whatsAppCredentials(channel);
    return {
      firstUrl: `${this.config.whatsapp.graphUrl}/${channel.whatsAppWabaId}/message_templates?limit=100`,
      fetchPage: async (url) => {
        const response = await graphRequest('GET', url, accessToken).catch((err: unknown) => {
          if (err instanceof GraphUnreachableError) throw TemplateSyncFailed(err.message);
          throw err;
        });
        if (response.status !== 200)
          throw TemplateSyncFailed(`The WhatsApp Business Account answered HTTP ${response.status} for its templates.`);
        return response.body as GraphTemplatePage;
      },
    };
  }

  /**
   * Fetches an inbound message's file: `GET /{media-id}` with the channel's token for its `url`,
   * then that URL with the same token, streamed into `target` (at most `maxBytes`).
   */
  async fetchMedia(channel: Readonly<Channel>, mediaId: string, target: string, maxBytes: number): Promise<MediaFetch> {
    const { accessToken } = this.channels.whatsAppCredentials(channel);
    const tooLarge = (): MediaFetch => ({
      kind: 'failed',
      errorCode: MEDIA_TOO_LARGE,
      failureReason: `The file is larger than the ${Math.round(maxBytes / 1024 / 1024)} MB kept for inbound media.`,
    });
    let info: GraphResponse;
    try {
      info = await graphRequest('GET', `${this.config.whatsapp.graphUrl}/${encodeURIComponent(mediaId)}`, accessToken);
    } catch (err) {
      if (err instanceof GraphUnreachableError) return { kind: 'retry', errorCode: MEDIA_DOWNLOAD_FAILED, failureReason: err.message };
      throw err;
    }
    const media = info.body as GraphMedia;
    if (info.status !== 200 || !media.url) {
      const meaning = describeCloudError(info.status, media.error?.code, errorText(media.error));
      return {
        kind: meaning.retry ? 'retry' : 'failed',
        errorCode: MEDIA_DOWNLOAD_FAILED,
        failureReason: `The Graph API did not describe media ${mediaId}: ${meaning.failureReason}`,
      };
    }
    if (Number(media.file_size) > maxBytes) return tooLarge();
    try {
      const download = await graphDownload(media.url, accessToken, target, maxBytes);
      if (download.status !== 200 || !download.sha256) {
        // An expired or refused URL: the next attempt asks the Graph API for a fresh one.
        return { kind: 'retry', errorCode: MEDIA_DOWNLOAD_FAILED, failureReason: `The media URL answered HTTP ${download.status}.` };
      }
      return {
        kind: 'fetched',
        size: download.size,
        sha256: download.sha256,
        mimeType: media.mime_type ?? download.contentType ?? null,
        expectedSha256: media.sha256 ?? null,
      };
    } catch (err) {
      if (err instanceof DownloadTooLargeError) return tooLarge();
      if (err instanceof GraphUnreachableError) return { kind: 'retry', errorCode: MEDIA_DOWNLOAD_FAILED, failureReason: err.message };
      throw err;
    }
  }

  async send(channel: Readonly<Channel>, request: Record<string, unknown>): Promise<SendOutcome> {
    const { accessToken } = this.channels.whatsAppCredentials(channel);
    const url = `${this.config.whatsapp.graphUrl}/${channel.whatsAppPhoneNumberId}/messages`;
    let response: GraphResponse;
    try {
      response = await graphRequest('POST', url, accessToken, request);
    } catch (err) {
      if (err instanceof GraphUnreachableError) return { kind: 'retry', ...unreachable(err.reason) };
      throw err;
    }
    const body = response.body as { messages?: Array<{ id: string }>; error?: CloudError };
    if (response.status >= 200 && response.status < 300 && body.messages?.[0]?.id) {
      return { kind: 'sent', providerMessageId: body.messages[0].id };
    }
    const { retry, errorCode, failureReason } = describeCloudError(response.status, body.error?.code, errorText(body.error));
    if (!retry) return { kind: 'failed', errorCode, failureReason };
    return { kind: 'retry', errorCode, failureReason, retryAfterMs: parseRetryAfter(response.retryAfter) ?? undefined };
  }
}
