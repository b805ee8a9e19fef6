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

const TIMEOUT_MS = 15_000;

/** The WhatsApp Cloud API: `POST {WHATSAPP_GRAPH_URL}/{phone-number-id}/messages` with the channel's own token. */
@Injectable()
export class CloudApiWhatsAppProvider implements WhatsAppProvider {
  constructor(
    private readonly config: AppConfig,
    private readonly channels: ChannelsService,
  ) {}

  /** The first page URL of the account's templates, and a reader for any page URL (the cursor's `next`). */
  templatePages(channel: Channel): { firstUrl: string; fetchPage: (url: string) => Promise<GraphTemplatePage> } {
    const { accessToken } = this.channels.whatsAppCredentials(channel);
    return {
      firstUrl: `${this.config.whatsapp.graphUrl}/${channel.whatsAppWabaId}/message_templates?limit=100`,
      fetchPage: async (url) => {
        const response = await fetch(url, { headers: { authorization: `Bearer ${accessToken}` }, signal: AbortSignal.timeout(TIMEOUT_MS) });
        if (!response.ok) {
          throw new ValidationError(
            'WhatsApp:TemplateSyncFailed',
            `The WhatsApp Business Account answered HTTP ${response.status} for its templates.`,
          );
        }
        return (await response.json()) as GraphTemplatePage;
      },
    };
  }

  async send(channel: Channel, request: Record<string, unknown>): Promise<SendOutcome> {
    const { accessToken } = this.channels.whatsAppCredentials(channel);
    let response: Response;
    try {
      response = await fetch(`${this.config.whatsapp.graphUrl}/${channel.whatsAppPhoneNumberId}/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(request),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      const error = err as Error & { cause?: { code?: string } };
      const why = error.name === 'TimeoutError' ? `no answer within ${TIMEOUT_MS / 1000} s` : (error.cause?.code ?? error.message);
      return { kind: 'retry', ...unreachable(why) };
    }
    const body = (await response.json().catch(() => ({}))) as {
      messages?: Array<{ id: string }>;
      error?: CloudError;
    };
    if (response.ok && body.messages?.[0]?.id) return { kind: 'sent', providerMessageId: body.messages[0].id };
    const { retry, errorCode, failureReason } = describeCloudError(response.status, body.error?.code, errorText(body.error));
    if (!retry) return { kind: 'failed', errorCode, failureReason };
    const retryAfterMs = parseRetryAfter(response.headers.get('retry-after') ?? undefined) ?? undefined;
    return { kind: 'retry', errorCode, failureReason, retryAfterMs };
  }
}
