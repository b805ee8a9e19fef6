import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ChannelsService } from '../channels/channels.service.js';
import { TimestampFormat } from '../common/time/timestamp-format.js';
import { ConversationEvent } from '../conversations/conversation-event.entity.js';
import { Conversation, EventSourceType } from '../conversations/conversation.entity.js';
import { Outbox } from '../queue/outbox.service.js';
import { WebhookKind } from '../webhooks/webhook-kind.js';
import { WebhookPublisher } from '../webhooks/webhook-publisher.js';
import type { StatusUpdate } from './cloud-webhook.js';

/** Forward only: a late `delivered` after `read` changes nothing. Failed ends anything not yet delivered. */
const RANK: Record<string, number> = { Pending: 0, Sent: 1, Delivered: 2, Read: 3, Failed: 4 };

function moves(current: string | null, next: StatusUpdate['status']): boolean {
  if (next === 'Failed') return current === 'Pending' || current === 'Sent';
  return current !== 'Failed' && (RANK[current ?? 'Pending'] ?? 0) < RANK[next];
}

/** Applies provider delivery statuses to outbound events and tells the channel's webhook. */
@Injectable()
export class StatusService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly channels: ChannelsService,
    private readonly webhooks: WebhookPublisher,
    private readonly outbox: Outbox,
  ) {}

  async apply(workspaceId: string, channelId: string, update: StatusUpdate): Promise<void> {
    const channel = await this.channels.get(workspaceId, channelId);
    await this.dataSource.transaction(async (manager) => {
      const event = await manager.findOne(ConversationEvent, {
        where: { workspaceId, channelId, sourceType: EventSourceType.WhatsApp, sourceId: update.providerMessageId },
        lock: { mode: 'pessimistic_write' },
      });
      if (!event || !moves(event.status, update.status)) return;
      await manager.update(
        ConversationEvent,
        { id: event.id },
        { status: update.status, errorCode: update.errorCode, failureReason: update.errorReason },
      );
      await manager.update(
        Conversation,
        { id: event.conversationId, workspaceId, lastEventOccurredAt: event.creationTime },
        { lastEventStatus: update.status },
      );
      if (!channel.webhookUrl) return;
      await this.webhooks.publish(manager, [
        {
          workspaceId,
          kind: WebhookKind.WhatsAppMessage,
          targetUrl: channel.webhookUrl,
          payload: {
            workspaceId,
            channelId,
            conversationId: event.conversationId,
            contactId: event.contactId,
            messageId: update.providerMessageId,
            direction: 'Outbound',
            messageType: (event.attachment?.messageType as string | undefined) ?? 'Text',
            body: event.body,
            mediaUrl: null,
            mimeType: null,
            status: update.status,
            senderUserId: null,
            latitude: null,
            longitude: null,
            creationTime: TimestampFormat.utc(event.creationTime),
            isBillable: (event.attachment?.messageType as string | undefined) === 'Template',
            errorCode: update.errorCode,
            errorReason: update.errorReason,
            buttonPayload: null,
            buttonText: null,
          },
        },
      ]);
    });
    this.outbox.afterCommit();
  }
}
