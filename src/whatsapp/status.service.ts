import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { Channel } from '../channels/channel.entity.js';
import { ChannelsService } from '../channels/channels.service.js';
import { TimestampFormat } from '../common/time/timestamp-format.js';
import { EventDirection, EventSourceType } from '../conversations/conversation.entity.js';
import { Outbox } from '../queue/outbox.service.js';
import { WebhookKind } from '../webhooks/webhook-kind.js';
import { WebhookPublisher } from '../webhooks/webhook-publisher.js';
import type { StatusUpdate } from './cloud-webhook.js';

type Status = StatusUpdate['status'];

/** A status an outbound event moves to; `providerMessageId` is null when the provider never took the message. */
export type StatusChange = Pick<StatusUpdate, 'status' | 'errorCode' | 'errorReason'> & { providerMessageId: string | null };

/** Which outbound event: ours by id, or the provider's message id on a channel. */
export type EventRef = { eventId: string } | { channelId: string; providerMessageId: string };

/** Forward only, so a late `delivered` after `read` changes nothing; Failed ends anything not yet delivered. */
const MOVABLE_FROM: Record<Status, string[]> = {
  Sent: ['Pending'],
  Delivered: ['Pending', 'Sent'],
  Read: ['Pending', 'Sent', 'Delivered'],
  Failed: ['Pending', 'Sent'],
};

/** The event row as the move returns it. */
interface MovedEvent {
  id: string;
  workspace_id: string;
  conversation_id: string;
  contact_id: string;
  source_id: string | null;
  body: string | null;
  attachment: Record<string, unknown> | null;
  creation_time: Date;
}

/**
 * One statement: the event moves only from a status before the new one (so concurrent updates
 * cannot move it backwards), and its conversation, when this event is still its last, shows the
 * new status.
 */
const MOVE_SQL = (match: string) => `
  WITH moved AS (
    UPDATE conversation_events
       SET status = $2, source_id = COALESCE(source_id, $3), error_code = $4, failure_reason = $5
     WHERE workspace_id = $1 AND direction = ${EventDirection.Outbound} AND status = ANY($6::varchar[]) AND ${match}
     RETURNING id, workspace_id, conversation_id, contact_id, source_id, body, attachment, creation_time
  ), stamped AS (
    UPDATE conversations c SET last_event_status = $2
      FROM moved
     WHERE c.id = moved.conversation_id AND c.workspace_id = moved.workspace_id AND c.last_event_occurred_at = moved.creation_time
  )
  SELECT * FROM moved`;
const MOVE_BY_ID = MOVE_SQL('id = $7');
const MOVE_BY_PROVIDER_ID = MOVE_SQL(`channel_id = $7 AND source_type = ${EventSourceType.WhatsApp} AND source_id = $8`);

/** Moves outbound WhatsApp events through their delivery statuses and tells the channel's webhook. */
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
    const channel = await this.channels.getRecent(workspaceId, channelId);
    await this.move(workspaceId, channel, { channelId, providerMessageId: update.providerMessageId }, update);
  }

  /**
   * Moves the event forward to `change.status` (a backward move changes nothing), keeps the
   * provider message id, and publishes the WhatsApp Message Webhook to the channel's webhookUrl in
   * the same transaction. `channel` is null when it was deleted. Returns whether the event moved.
   */
  async move(workspaceId: string, channel: Readonly<Channel> | null, ref: EventRef, change: StatusChange): Promise<boolean> {
    const params = [
      workspaceId,
      change.status,
      change.providerMessageId,
      change.errorCode,
      change.errorReason?.slice(0, 1000) ?? null,
      MOVABLE_FROM[change.status],
      ...('eventId' in ref ? [ref.eventId] : [ref.channelId, ref.providerMessageId]),
    ];
    const sql = 'eventId' in ref ? MOVE_BY_ID : MOVE_BY_PROVIDER_ID;
    const webhookUrl = channel?.webhookUrl;
    if (!webhookUrl) return ((await this.dataSource.query(sql, params)) as MovedEvent[]).length > 0;
    const moved = await this.dataSource.transaction(async (manager) => {
      const [event] = (await manager.query(sql, params)) as MovedEvent[];
      if (event) await this.publish(manager, webhookUrl, channel.id, event, change);
      return event !== undefined;
    });
    if (moved) this.outbox.afterCommit();
    return moved;
  }

  private publish(manager: EntityManager, webhookUrl: string, channelId: string, event: MovedEvent, change: StatusChange) {
    const messageType = (event.attachment?.messageType as string | undefined) ?? 'Text';
    return this.webhooks.publish(manager, [
      {
        workspaceId: event.workspace_id,
        kind: WebhookKind.WhatsAppMessage,
        targetUrl: webhookUrl,
        payload: {
          workspaceId: event.workspace_id,
          channelId,
          conversationId: event.conversation_id,
          contactId: event.contact_id,
          // A message that never reached the provider has no provider id: its conversation event id stands in.
          messageId: event.source_id ?? event.id,
          direction: 'Outbound',
          messageType,
          body: event.body,
          mediaUrl: null,
          mimeType: null,
          status: change.status,
          senderUserId: null,
          latitude: null,
          longitude: null,
          creationTime: TimestampFormat.utc(event.creation_time),
          isBillable: messageType === 'Template',
          errorCode: change.errorCode,
          errorReason: change.errorReason,
          buttonPayload: null,
          buttonText: null,
        },
      },
    ]);
  }
}
