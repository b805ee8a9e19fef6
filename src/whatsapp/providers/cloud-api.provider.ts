import { Injectable } from '@nestjs/common';
import type { Channel } from '../../channels/channel.entity.js';
import { ChannelsService } from '../../channels/channels.service.js';
import { AppConfig } from '../../config/app-config.js';
import { parseRetryAfter } from '../../webhooks/webhook-sender.js';
import type { MarkReadOutcome, MediaUpload, ProviderFailure, SendOutcome, UploadOutcome, WhatsAppProvider } from './whatsapp-provider.js';
import type { GraphTemplatePage } from '../templates.service.js';
import { TemplateSyncFailed } from '../whatsapp.errors.js';
import { describeCloudError, unreachable } from './cloud-api-errors.js';
import { errorText, type CloudError } from '../cloud-webhook.js';
import { graphRequest, graphUpload, GraphUnreachableError, type GraphResponse } from './graph-http.js';

/**
 * The WhatsApp Cloud API with the channel's own token: `POST {WHATSAPP_GRAPH_URL}/{phone-number-id}/messages`
 * (messages and Mark As Read) and `/{phone-number-id}/media` (uploads).
 */
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
  return { kind: 'retry', errorCode, failureReason, retryAfterMs: parseRetryAfter(response.retryAfter) ?? undefined };
}
