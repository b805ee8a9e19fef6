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
import { graphRequest, GraphUnreachableError, type GraphResponse } from './graph-http.js';

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
