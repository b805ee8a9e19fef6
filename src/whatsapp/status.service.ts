import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { Channel } from '../channels/channel.entity.js';
import { ChannelsService } from '../channels/channels.service.js';
import { TimestampFormat } from '../common/time/timestamp-format.js';
import { ConversationEvent } from '../conversations/conversation-event.entity.js';
import { Conversation, EventSourceType } from '../conversations/conversation.entity.js';
import { Outbox } from '../queue/outbox.service.js';
import { WebhookKind } from '../webhooks/webhook-kind.js';
import { WebhookPublisher } from '../webhooks/webhook-publisher.js';
import type { StatusUpdate } from './cloud-webhook.js';

/** A status an outbound event moves to; `providerMessageId` is null when the provider never took the message. */
export type StatusChange = Pick<StatusUpdate, 'status' | 'errorCode' | 'errorReason'> & { providerMessageId: string | null };

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

  /** A provider status notification: moves the outbound event with that provider message id. */
  async apply(workspaceId: string, channelId: string, update: StatusUpdate): Promise<void> {
    const channel = await this.channels.get(workspaceId, channelId);
    const published = await this.dataSource.transaction(async (manager) => {
      const event = await manager.findOne(ConversationEvent, {
        where: { workspaceId, channelId, sourceType: EventSourceType.WhatsApp, sourceId: update.providerMessageId },
        lock: { mode: 'pessimistic_write' },
      });
      return event ? this.advance(manager, channel, event, update) : false;
    });
    if (published) this.outbox.afterCommit();
  }

  /**
   * Moves an outbound event (locked by the caller's transaction) forward to `change.status`, keeps
   * the provider message id, stamps the conversation, and tells the channel's webhook. Returns
   * whether a webhook was published (the caller kicks the outbox after commit).
   */
  async advance(manager: EntityManager, channel: Channel | null, event: ConversationEvent, change: StatusChange): Promise<boolean> {
    if (!moves(event.status, change.status)) return false;
    const sourceId = event.sourceId ?? change.providerMessageId;
    await manager.update(
      ConversationEvent,
      { id: event.id },
      { status: change.status, sourceId, errorCode: change.errorCode, failureReason: change.errorReason?.slice(0, 1000) ?? null },
    );
    // The conversation shows the status of its last event.
    await manager.update(
      Conversation,
      { id: event.conversationId, workspaceId: event.workspaceId, lastEventOccurredAt: event.creationTime },
      { lastEventStatus: change.status },
    );
    if (!channel?.webhookUrl) return false;
    const messageType = (event.attachment?.messageType as string | undefined) ?? 'Text';
    await this.webhooks.publish(manager, [
      {
        workspaceId: event.workspaceId,
        kind: WebhookKind.WhatsAppMessage,
        targetUrl: channel.webhookUrl,
        payload: {
          workspaceId: event.workspaceId,
          channelId: channel.id,
          conversationId: event.conversationId,
          contactId: event.contactId,
          // A message that never reached the provider has no provider id: its conversation event id stands in.
          messageId: sourceId ?? event.id,
          direction: 'Outbound',
          messageType,
          body: event.body,
          mediaUrl: null,
          mimeType: null,
          status: change.status,
          senderUserId: null,
          latitude: null,
          longitude: null,
          creationTime: TimestampFormat.utc(event.creationTime),
          isBillable: messageType === 'Template',
          errorCode: change.errorCode,
          errorReason: change.errorReason,
          buttonPayload: null,
          buttonText: null,
        },
      },
    ]);
    return true;
  }
}
