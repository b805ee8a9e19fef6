import { Injectable } from '@nestjs/common';
import type { Channel } from '../../channels/channel.entity.js';
import { ChannelsService } from '../../channels/channels.service.js';
import { AppConfig } from '../../config/app-config.js';
import { parseRetryAfter } from '../../webhooks/webhook-sender.js';
import type { MarkReadOutcome, MediaUpload, ProviderFailure, SendOutcome, UploadOutcome, WhatsAppProvider } from './whatsapp-provider.js';
import type { GraphTemplatePage } from '../templates/templates.service.js';
import type { AccountTemplate } from '../templates/whatsapp-templates.repository.js';
import { TemplateRefused, TemplateSyncFailed } from '../whatsapp.errors.js';
import { describeCloudError, unreachable } from './cloud-api-errors.js';
import { errorText, type CloudError } from '../inbound/cloud-webhook.js';
import {
  DownloadTooLargeError,
  graphDownload,
  graphRequest,
  graphUpload,
  GraphUnreachableError,
  type GraphResponse,
} from './graph-http.js';

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

/** What creating a template at the account came to: created, or the account holds that name and language already. */
export type CreatedTemplate = { kind: 'created'; id: string; status: string; category: string | null } | { kind: 'exists'; refusal: Error };

/** Meta's subcode for "Message template already exists" (the name in that language). */
const TEMPLATE_EXISTS_SUBCODE = 2388024;

type GraphTemplateError = CloudError & { error_user_msg?: string; error_subcode?: number };

const graphError = (response: GraphResponse) => (response.body as { error?: GraphTemplateError } | null)?.error;

/** Meta's refusal of a template call, in its own words. */
function templateRefusal(response: GraphResponse): Error {
  const error = graphError(response);
  const words = error?.error_user_msg ?? errorText(error) ?? `HTTP ${response.status}`;
  return TemplateRefused(`The WhatsApp Business Account refused the template: ${words}`);
}

/** What a template is read with, in a list or alone: Meta leaves `quality_score` out unless it is asked for. */
const TEMPLATE_FIELDS = 'id,name,language,status,category,components,quality_score';

export const MEDIA_DOWNLOAD_FAILED = 'WhatsApp:MediaDownloadFailed';
export const MEDIA_TOO_LARGE = 'WhatsApp:MediaTooLarge';

/**
 * The WhatsApp Cloud API with the channel's own token: `POST {WHATSAPP_GRAPH_URL}/{phone-number-id}/messages`
 * (messages and Mark As Read) and `/{phone-number-id}/media` (uploads).
 */
/** A page request refused because its cursor is outdated or invalid (Graph API v24.0 and later). */
export const STALE_CURSOR = Symbol('stale template cursor');
export type StaleCursor = typeof STALE_CURSOR;

@Injectable()
export class CloudApiWhatsAppProvider implements WhatsAppProvider {
  constructor(
    private readonly config: AppConfig,
    private readonly channels: ChannelsService,
  ) {}

  /** The first page URL of the account's templates, and a reader for any page URL (the cursor's `next`). */
  templatePages(channel: Readonly<Channel>): {
    firstUrl: string;
    fetchPage: (url: string) => Promise<GraphTemplatePage | StaleCursor>;
  } {
    const { accessToken } = this.channels.whatsAppCredentials(channel);
    return {
      firstUrl: this.templatesUrl(channel),
      fetchPage: async (url) => {
        const response = await graphRequest('GET', url, accessToken).catch((err: unknown) => {
          if (err instanceof GraphUnreachableError) throw TemplateSyncFailed(err.message);
          throw err;
        });
        // Since v24.0 a cursor Meta no longer honours is a 400: the caller starts again without it.
        if (response.status === 400 && url !== this.templatesUrl(channel)) return STALE_CURSOR;
        if (response.status !== 200)
          throw TemplateSyncFailed(`The WhatsApp Business Account answered HTTP ${response.status} for its templates.`);
        return response.body as GraphTemplatePage;
      },
    };
  }

  /**
   * `POST /{waba-id}/message_templates`: Meta answers `{ id, status, category }` (status PENDING
   * while it reviews). A refusal is a 400 with Meta's own words; the account holding the name in
   * that language already (error 100, subcode 2388024) is answered as `exists`, with that refusal.
   */
  async createTemplate(channel: Readonly<Channel>, body: Record<string, unknown>): Promise<CreatedTemplate> {
    const response = await this.templateRequest(channel, 'POST', this.templatesBase(channel), body);
    if (response.status < 200 || response.status >= 300) {
      const refusal = templateRefusal(response);
      if (graphError(response)?.error_subcode === TEMPLATE_EXISTS_SUBCODE) return { kind: 'exists', refusal };
      throw refusal;
    }
    const created = response.body as { id?: unknown; status?: unknown; category?: unknown };
    return {
      kind: 'created',
      id: String(created.id ?? ''),
      status: typeof created.status === 'string' ? created.status : 'PENDING',
      category: typeof created.category === 'string' ? created.category : null,
    };
  }

  /** The account's template of this name and language (`GET /{waba-id}/message_templates?name=…&language=…`), if it holds one. */
  async templateNamed(channel: Readonly<Channel>, name: string, language: string): Promise<AccountTemplate | undefined> {
    const query = new URLSearchParams({ name, language, fields: TEMPLATE_FIELDS });
    const page = (await this.templateCall(channel, 'GET', `${this.templatesBase(channel)}?${query}`)) as GraphTemplatePage;
    return (Array.isArray(page?.data) ? page.data : []).find((t) => t.name === name && t.language === language);
  }

  /**
   * `GET /{template-id}` with the fields a stored template keeps: Meta answers the template as it
   * holds it (`{ id, name, language, status, category, components, quality_score }`), which is how
   * a template made from the template library (whose create answers only its id) gets its content.
   */
  async template(channel: Readonly<Channel>, templateId: string): Promise<AccountTemplate> {
    const url = `${this.config.whatsapp.graphUrl}/${encodeURIComponent(templateId)}?fields=${TEMPLATE_FIELDS}`;
    return (await this.templateCall(channel, 'GET', url)) as AccountTemplate;
  }

  /** `DELETE /{waba-id}/message_templates?name=…`: every language of the name. */
  async deleteTemplate(channel: Readonly<Channel>, name: string): Promise<void> {
    await this.templateCall(channel, 'DELETE', `${this.templatesBase(channel)}?name=${encodeURIComponent(name)}`);
  }

  private async templateCall(channel: Readonly<Channel>, method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown): Promise<unknown> {
    const response = await this.templateRequest(channel, method, url, body);
    if (response.status >= 200 && response.status < 300) return response.body;
    throw templateRefusal(response);
  }

  private async templateRequest(
    channel: Readonly<Channel>,
    method: 'GET' | 'POST' | 'DELETE',
    url: string,
    body?: unknown,
  ): Promise<GraphResponse> {
    const { accessToken } = this.channels.whatsAppCredentials(channel);
    return graphRequest(method, url, accessToken, body).catch((err: unknown) => {
      if (err instanceof GraphUnreachableError) throw TemplateSyncFailed(err.message);
      throw err;
    });
  }

  private templatesBase(channel: Readonly<Channel>): string {
    return `${this.config.whatsapp.graphUrl}/${channel.whatsAppWabaId}/message_templates`;
  }

  private templatesUrl(channel: Readonly<Channel>): string {
    return `${this.templatesBase(channel)}?fields=${TEMPLATE_FIELDS}&limit=100`;
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
    const answer = await this.call(() => graphRequest('POST', this.messagesUrl(channel), accessToken, request));
    if (answer.kind !== 'answered') return answer;
    const body = answer.response.body as { messages?: Array<{ id: string }> };
    if (isSuccess(answer.response) && body.messages?.[0]?.id) return { kind: 'sent', providerMessageId: body.messages[0].id };
    return failure(answer.response);
  }

  /** Meta answers `{ success: true }`. */
  async markRead(channel: Readonly<Channel>, request: Record<string, unknown>): Promise<MarkReadOutcome> {
    const { accessToken } = this.channels.whatsAppCredentials(channel);
    const answer = await this.call(() => graphRequest('POST', this.messagesUrl(channel), accessToken, request));
    if (answer.kind !== 'answered') return answer;
    if (isSuccess(answer.response) && (answer.response.body as { success?: boolean }).success === true) return { kind: 'done' };
    return failure(answer.response);
  }

  /** `POST /{phone-number-id}/media`, multipart: `messaging_product=whatsapp`, `type` (the MIME type) and `file`; Meta answers `{ id }`. */
  async uploadMedia(channel: Readonly<Channel>, media: MediaUpload): Promise<UploadOutcome> {
    const { accessToken } = this.channels.whatsAppCredentials(channel);
    const url = `${this.config.whatsapp.graphUrl}/${channel.whatsAppPhoneNumberId}/media`;
    const answer = await this.call(() => graphUpload(url, accessToken, { messaging_product: 'whatsapp', type: media.contentType }, media));
    if (answer.kind !== 'answered') return answer;
    const body = answer.response.body as { id?: unknown };
    if (isSuccess(answer.response) && typeof body.id === 'string' && body.id) return { kind: 'uploaded', providerMediaId: body.id };
    return failure(answer.response);
  }

  private messagesUrl(channel: Readonly<Channel>): string {
    return `${this.config.whatsapp.graphUrl}/${channel.whatsAppPhoneNumberId}/messages`;
  }

  /** The Graph API's answer, or a retry when it could not be reached. */
  private async call(request: () => Promise<GraphResponse>): Promise<{ kind: 'answered'; response: GraphResponse } | ProviderFailure> {
    try {
      return { kind: 'answered', response: await request() };
    } catch (err) {
      if (err instanceof GraphUnreachableError) return { kind: 'retry', ...unreachable(err.reason) };
      throw err;
    }
  }
}

const isSuccess = (response: GraphResponse) => response.status >= 200 && response.status < 300;

/** A Graph API error answer (or a 2xx without what was asked for), by its meaning. */
function failure(response: GraphResponse): ProviderFailure {
  const error = (response.body as { error?: CloudError }).error;
  const { retry, errorCode, failureReason } = describeCloudError(response.status, error?.code, errorText(error));
  if (!retry) return { kind: 'failed', errorCode, failureReason };
  return {
    kind: 'retry',
    errorCode,
    failureReason,
    retryAfterMs: parseRetryAfter(response.retryAfter) ?? undefined,
    cloudErrorCode: error?.code,
  };
}
