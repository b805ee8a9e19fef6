import { Injectable } from '@nestjs/common';
import type { Channel } from '../../channels/channel.entity.js';
import { ChannelsService } from '../../channels/channels.service.js';
import { newId } from '../../common/id.js';
import type { PagedRequestDto } from '../../common/paging/paged-request.dto.js';
import type { PagedResult } from '../../common/paging/paged-result.js';
import { Outbox } from '../../queue/outbox.service.js';
import { JobName } from '../../queue/queue-names.js';
import { statusNotification, type CloudStatus } from '../inbound/cloud-webhook.js';
import { TemplatesService } from '../templates/templates.service.js';
import type { SandboxMessage } from '../outbound/sandbox-message.entity.js';
import { SandboxMessagesRepository } from '../outbound/sandbox-messages.repository.js';
import type { MarkReadOutcome, MediaUpload, SendOutcome, UploadOutcome, WhatsAppProvider } from './whatsapp-provider.js';
import { inTransaction } from '../../database/transactions.js';

const STATUS_STEP_MS = 300;

/**
 * No network: keeps the exact Cloud API request body for operators to read, answers with a message
 * id, then plays out `sent`, `delivered` and `read` through the same webhook pipeline a real
 * provider feeds, `sent` and `delivered` carrying `pricing` as Meta's per-message pricing reports
 * it (see {@link sandboxPricing}), so usage counts in the sandbox too. Mark As Read is kept the same
 * way; an upload answers a media id of its own.
 */
@Injectable()
export class SandboxWhatsAppProvider implements WhatsAppProvider {
  constructor(
    private readonly messages: SandboxMessagesRepository,
    private readonly channels: ChannelsService,
    private readonly outbox: Outbox,
    private readonly templates: TemplatesService,
  ) {}

  async send(channel: Readonly<Channel>, request: Record<string, unknown>): Promise<SendOutcome> {
    const providerMessageId = `wamid.sandbox.${newId()}`;
    const recipient = { to: request.to as string | undefined, recipient: request.recipient as string | undefined };
    const pricing = await this.pricingOf(channel, request);
    await inTransaction(async () => {
      await this.messages.record(channel.workspaceId, channel.id, providerMessageId, request);
      await this.outbox.enqueue(
        (['sent', 'delivered', 'read'] as const).map((status, i) => ({
          jobName: JobName.ProcessWhatsAppWebhook,
          workspaceId: channel.workspaceId,
          runAt: new Date(Date.now() + STATUS_STEP_MS * (i + 1)),
          payload: {
            channelId: channel.id,
            notification: statusNotification(providerMessageId, status, recipient, status === 'read' ? undefined : pricing) as Record<
              string,
              unknown
            >,
          },
        })),
      );
    });
    return { kind: 'sent', providerMessageId };
  }

  /** The pricing Meta would report for this send: a template's by its stored category, anything else a free service reply. */
  private async pricingOf(channel: Readonly<Channel>, request: Record<string, unknown>): Promise<CloudStatus['pricing']> {
    if (request.type !== 'template') return sandboxPricing(null);
    const template = (request.template ?? {}) as { name?: string; language?: { code?: string } };
    const stored =
      template.name && template.language?.code ? await this.templates.stored(channel, template.name, template.language.code) : undefined;
    return sandboxPricing(stored?.category ?? null);
  }

  /** Kept like a message, under the id of the message marked read. */
  async markRead(channel: Readonly<Channel>, request: Record<string, unknown>): Promise<MarkReadOutcome> {
    await this.messages.record(channel.workspaceId, channel.id, String(request.message_id ?? ''), request);
    return { kind: 'done' };
  }

  /** The bytes go nowhere; the id stands in for Meta's in the messages that use it. */
  uploadMedia(_channel: Readonly<Channel>, media: MediaUpload): Promise<UploadOutcome> {
    media.stream.destroy();
    return Promise.resolve({ kind: 'uploaded', providerMediaId: `sandbox-media-${newId()}` });
  }

  /** Operators: what the sandbox was asked to send on a channel, newest first. */
  async sentMessages(channelId: string, paging: PagedRequestDto): Promise<PagedResult<SandboxMessage>> {
    const channel = await this.channels.findUnscopedForOperator(channelId);
    return this.messages.page(channel.workspaceId, channel.id, paging);
  }
}

/**
 * Meta's per-message pricing (`pricing_model` PMP) as a status reports it: a template is charged
 * (`regular`) in its category (marketing, utility, authentication); any other message is a reply
 * in the customer service window, free (`free_customer_service`, category service). What Meta
 * decides beyond the template (a utility template free inside the window, free entry points,
 * international authentication rates) the sandbox does not play.
 */
export function sandboxPricing(templateCategory: string | null): NonNullable<CloudStatus['pricing']> {
  if (templateCategory === null) return { billable: false, pricing_model: 'PMP', category: 'service', type: 'free_customer_service' };
  return { billable: true, pricing_model: 'PMP', category: templateCategory.toLowerCase(), type: 'regular' };
}
