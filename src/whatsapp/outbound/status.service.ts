import { Injectable } from '@nestjs/common';
import type { Channel } from '../../channels/channel.entity.js';
import { ChannelsService } from '../../channels/channels.service.js';
import { TimestampFormat } from '../../common/time/timestamp-format.js';
import { MessageEvents, type MovedEvent, type OutboundEventRef } from '../../conversations/message-events.service.js';
import { Outbox } from '../../queue/outbox.service.js';
import { WebhookKind } from '../../webhooks/webhook-kind.js';
import { WebhookPublisher } from '../../webhooks/webhook-publisher.js';
import type { StatusUpdate } from '../inbound/cloud-webhook.js';
import { messageWebhookPayload, pricingView } from '../message-webhook.js';
import { ContactsService } from '../../contacts/contacts.service.js';
import { WhatsAppContactsService } from '../inbound/whatsapp-contacts.service.js';
import { RECIPIENT_OPTED_OUT } from '../providers/cloud-api-errors.js';
import { inTransaction } from '../../database/transactions.js';
import { RetryLaterError } from '../../queue/retry-later.js';
import { WhatsAppUsage } from '../account/usage.service.js';

type Status = StatusUpdate['status'];

/** A status an outbound event moves to; `providerMessageId` is null when the provider never took the message. */
export type StatusChange = Pick<StatusUpdate, 'status' | 'errorCode' | 'errorReason' | 'isBillable' | 'recipientUserId'> & {
  providerMessageId: string | null;
};

/** Forward only, so a late `delivered` after `read` changes nothing; Failed ends anything not yet delivered. */
const MOVABLE_FROM: Record<Status, string[]> = {
  Sent: ['Pending'],
  Delivered: ['Pending', 'Sent'],
  Read: ['Pending', 'Sent', 'Delivered'],
  Failed: ['Pending', 'Sent'],
};

/** Moves outbound WhatsApp events through their delivery statuses and tells the channel's webhook. */
@Injectable()
export class StatusService {
  constructor(
    private readonly events: MessageEvents,
    private readonly channels: ChannelsService,
    private readonly webhooks: WebhookPublisher,
    private readonly outbox: Outbox,
    private readonly contacts: ContactsService,
    private readonly whatsAppContacts: WhatsAppContactsService,
    private readonly usage: WhatsAppUsage,
  ) {}

  /** A provider status notification: moves the outbound event with that provider message id. */
  async apply(workspaceId: string, channelId: string, update: StatusUpdate): Promise<void> {
    const channel = await this.channels.getRecent(workspaceId, channelId);
    const ref = { channelId, providerMessageId: update.providerMessageId };
    // Meta repeats a message's pricing on sent, delivered and read: the first kept is the one counted, with the message, in one transaction.
    const { pricing } = update;
    if (pricing) {
      await inTransaction(async () => {
        const priced = await this.events.recordPricing(workspaceId, ref, pricing);
        if (priced) await this.usage.count(workspaceId, priced, new Date(update.at));
      });
    }
    const event = await this.moveEvent(workspaceId, channel, ref, update);
    if (!event && !(await this.events.findWhatsAppMessage(workspaceId, channelId, update.providerMessageId))) {
      // Meta can report `delivered` before our worker has recorded the provider's answer (the id is not
      // stored yet): the notification is tried again (the intake's backoff: 1, 3, 7, 15 s), not lost.
      throw new RetryLaterError(`Status ${update.status} of WhatsApp message ${update.providerMessageId}, not recorded yet`);
    }
    // A message sent to a number reports the recipient's BSUID: the contact learns it (when it has none).
    if (event && update.recipientUserId) {
      const userId = update.recipientUserId;
      await inTransaction(() => this.whatsAppContacts.learnUserId(workspaceId, event.contact_id, userId));
    }
  }

  /**
   * Moves the event forward to `change.status` (a backward move changes nothing), keeps the
   * provider message id, and publishes the WhatsApp Message Webhook to the channel's webhookUrl and
   * the endpoints that take it in the same transaction. `channel` is null when it was deleted. Returns whether the event moved.
   */
  async move(workspaceId: string, channel: Readonly<Channel> | null, ref: OutboundEventRef, change: StatusChange): Promise<boolean> {
    return (await this.moveEvent(workspaceId, channel, ref, change)) !== undefined;
  }

  /** {@link move}, returning the event when it moved. */
  private async moveEvent(
    workspaceId: string,
    channel: Readonly<Channel> | null,
    ref: OutboundEventRef,
    change: StatusChange,
  ): Promise<MovedEvent | undefined> {
    const move = {
      status: change.status,
      providerMessageId: change.providerMessageId,
      errorCode: change.errorCode,
      failureReason: change.errorReason?.slice(0, 1000) ?? null,
      isBillable: change.isBillable ?? null,
    };
    const from = MOVABLE_FROM[change.status];
    const webhookUrl = channel?.webhookUrl ?? null;
    // Without the channel's URL or an endpoint that takes it, the move needs no transaction of its own.
    const event =
      !channel || !(await this.webhooks.wanted(workspaceId, WebhookKind.WhatsAppMessage, channel.id, webhookUrl))
        ? (await this.events.moveOutboundStatus(workspaceId, ref, move, from))[0]
        : await inTransaction(async () => {
            const [moved] = await this.events.moveOutboundStatus(workspaceId, ref, move, from);
            if (moved) await this.publish(webhookUrl, channel.id, moved, change);
            return moved;
          });
    // Meta's 131050 (at the send or in a failed status): the recipient stopped marketing messages.
    if (event && change.status === 'Failed' && change.errorCode === RECIPIENT_OPTED_OUT) {
      await this.whatsAppContacts.providerOptedOut(workspaceId, event.contact_id);
    }
    return event;
  }

  private publish(webhookUrl: string | null, channelId: string, event: MovedEvent, change: StatusChange) {
    const messageType = (event.attachment?.messageType as string | undefined) ?? 'Text';
    return this.webhooks.publish([
      {
        workspaceId: event.workspace_id,
        kind: WebhookKind.WhatsAppMessage,
        targetUrl: webhookUrl,
        payload: {
          ...messageWebhookPayload({
            workspaceId: event.workspace_id,
            channelId,
            conversationId: event.conversation_id,
            contactId: event.contact_id,
            // A message that never reached the provider has no provider id: `messageId` is then its event id.
            eventId: event.id,
            providerMessageId: event.source_id,
            action: 'StatusChanged',
            direction: 'Outbound',
            source: event.source ?? 'Api',
            messageType,
            body: event.body,
            status: change.status,
            creationTime: TimestampFormat.utc(event.creation_time),
            // What the provider's pricing said; before any status carried it, templates are the messages charged for.
            isBillable: event.is_billable ?? messageType === 'Template',
            pricing: pricingView(event.pricing),
            errorCode: change.errorCode,
            errorReason: change.errorReason,
            whatsAppUserId: change.recipientUserId ?? null,
          }),
        },
      },
    ]);
  }
}
