import { Injectable } from '@nestjs/common';
import type { Channel } from '../../channels/channel.entity.js';
import { ChannelsService } from '../../channels/channels.service.js';
import { newId } from '../../common/id.js';
import type { PagedRequestDto } from '../../common/paging/paged-request.dto.js';
import type { PagedResult } from '../../common/paging/paged-result.js';
import { Outbox } from '../../queue/outbox.service.js';
import { JobName } from '../../queue/queue-names.js';
import { statusNotification } from '../inbound/cloud-webhook.js';
import type { SandboxMessage } from '../outbound/sandbox-message.entity.js';
import { SandboxMessagesRepository } from '../outbound/sandbox-messages.repository.js';
import type { MarkReadOutcome, MediaUpload, SendOutcome, UploadOutcome, WhatsAppProvider } from './whatsapp-provider.js';
import { inTransaction } from '../../database/transactions.js';

const STATUS_STEP_MS = 300;

/**
 * No network: keeps the exact Cloud API request body for operators to read, answers with a message
 * id, then plays out `sent`, `delivered` and `read` through the same webhook pipeline a real
 * provider feeds. Mark As Read is kept the same way; an upload answers a media id of its own.
 */
@Injectable()
export class SandboxWhatsAppProvider implements WhatsAppProvider {
  constructor(
    private readonly messages: SandboxMessagesRepository,
    private readonly channels: ChannelsService,
    private readonly outbox: Outbox,
  ) {}

  async send(channel: Readonly<Channel>, request: Record<string, unknown>): Promise<SendOutcome> {
    const providerMessageId = `wamid.sandbox.${newId()}`;
    const recipient = { to: request.to as string | undefined, recipient: request.recipient as string | undefined };
    await inTransaction(async () => {
      await this.messages.record(channel.workspaceId, channel.id, providerMessageId, request);
      await this.outbox.enqueue(
        (['sent', 'delivered', 'read'] as const).map((status, i) => ({
          jobName: JobName.ProcessWhatsAppWebhook,
          workspaceId: channel.workspaceId,
          runAt: new Date(Date.now() + STATUS_STEP_MS * (i + 1)),
          payload: {
            channelId: channel.id,
            notification: statusNotification(providerMessageId, status, recipient) as Record<string, unknown>,
          },
        })),
      );
    });
    return { kind: 'sent', providerMessageId };
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
