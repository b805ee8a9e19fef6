import { Injectable } from '@nestjs/common';
import { ChannelsService } from '../channels/channels.service.js';
import { newId } from '../common/id.js';
import { TimestampFormat } from '../common/time/timestamp-format.js';
import { ContactsService } from '../contacts/contacts.service.js';
import { ConversationEventsRepository } from '../conversations/conversation-events.repository.js';
import { EventDirection, EventSourceType } from '../conversations/conversation-enums.js';
import { ConversationsService } from '../conversations/conversations.service.js';
import { TimelineService } from '../conversations/timeline.service.js';
import { Outbox } from '../queue/outbox.service.js';
import { JobName } from '../queue/queue-names.js';
import { WebhookKind } from '../webhooks/webhook-kind.js';
import { WebhookPublisher } from '../webhooks/webhook-publisher.js';
import { NotASandboxChannel } from './whatsapp.errors.js';

/** An inbound message in provider-neutral form (the sandbox injects these; the Cloud API webhook will too). */
export interface InboundMessage {
  providerMessageId: string;
  fromNumber: string;
  type: 'text' | 'button' | 'interactive';
  text?: string;
  payload?: string;
  replyToMessageId?: string;
  receivedAt: string;
}

/**
 * Inbound messages: the contact and its open conversation (created if needed), an inbound timeline
 * event (which opens the 24 h service window), and the WhatsApp Message Webhook to the channel's
 * webhookUrl, all in one transaction. A message id seen before is ignored (providers redeliver).
 */
@Injectable()
export class InboundService {
  constructor(
    private readonly events: ConversationEventsRepository,
    private readonly channels: ChannelsService,
    private readonly contacts: ContactsService,
    private readonly conversations: ConversationsService,
    private readonly timeline: TimelineService,
    private readonly webhooks: WebhookPublisher,
    private readonly outbox: Outbox,
  ) {}

  async receive(workspaceId: string, channelId: string, message: InboundMessage): Promise<void> {
    const channel = await this.channels.get(workspaceId, channelId, 'whatsapp');
    const isButton = message.type !== 'text';
    await this.outbox.transaction(async (tx) => {
      const { manager } = tx;
      const events = this.events.withManager(manager);
      // Serialise on the message id so a redelivered webhook cannot record the message twice.
      await events.lockSource(channelId, message.providerMessageId);
      if (await events.exists(workspaceId, { sourceType: EventSourceType.WhatsApp, sourceId: message.providerMessageId })) return;
      const contact = await this.contacts.findOrCreateByPhone(
        manager,
        { workspaceId, serviceAccountId: null, name: 'WhatsApp' },
        message.fromNumber,
      );
      const conversation = await this.conversations.findOrOpen(manager, workspaceId, channel.id, contact.id);
      const body = isButton ? (message.payload ?? message.text ?? '') : (message.text ?? '');
      const event = await this.timeline.record(manager, conversation, {
        sourceType: EventSourceType.WhatsApp,
        direction: EventDirection.Inbound,
        sourceId: message.providerMessageId,
        status: 'Received',
        body,
        creationTime: new Date(message.receivedAt),
        attachment: isButton
          ? { messageType: 'Interactive', buttonPayload: message.payload ?? null, buttonText: message.text ?? null }
          : { messageType: 'Text' },
        replyTo: await this.repliedTo(events, workspaceId, message.replyToMessageId),
      });
      if (channel.webhookUrl) {
        const published = await this.webhooks.publish(manager, [
          {
            workspaceId,
            kind: WebhookKind.WhatsAppMessage,
            targetUrl: channel.webhookUrl,
            payload: {
              workspaceId,
              channelId: channel.id,
              conversationId: conversation.id,
              contactId: contact.id,
              messageId: message.providerMessageId,
              direction: 'Inbound',
              messageType: isButton ? 'Interactive' : 'Text',
              body,
              mediaUrl: null,
              mimeType: null,
              status: null,
              senderUserId: null,
              latitude: null,
              longitude: null,
              creationTime: TimestampFormat.utc(event.creationTime),
              isBillable: false,
              errorCode: null,
              errorReason: null,
              buttonPayload: isButton ? (message.payload ?? null) : null,
              buttonText: isButton ? (message.text ?? null) : null,
            },
          },
        ]);
        tx.pushAfterCommit(published);
      }
    });
  }

  /** The event a reply quotes, found by the provider message id the reply's context names. */
  private async repliedTo(events: ConversationEventsRepository, workspaceId: string, providerMessageId: string | undefined) {
    if (!providerMessageId) return null;
    const quoted = await events.findBySource(workspaceId, EventSourceType.WhatsApp, providerMessageId);
    return { repliedToEventId: quoted?.id ?? null, repliedToBody: quoted?.body ?? null };
  }

  /** Admin sandbox route: queue an inbound message on a sandbox channel as the provider would deliver it. Returns its message id. */
  async injectSandbox(channelId: string, message: Omit<InboundMessage, 'providerMessageId' | 'receivedAt'>): Promise<string> {
    const channel = await this.channels.findUnscopedForOperator(channelId);
    if (channel.whatsAppProvider !== 'sandbox') throw NotASandboxChannel('Inbound messages are injected only on sandbox channels.');
    const providerMessageId = `wamid.sandbox.in.${newId()}`;
    await this.outbox.transaction((tx) =>
      tx.enqueue([
        {
          jobName: JobName.ReceiveWhatsAppMessage,
          workspaceId: channel.workspaceId,
          payload: { channelId: channel.id, message: { ...message, providerMessageId, receivedAt: new Date().toISOString() } },
        },
      ]),
    );
    return providerMessageId;
  }
}
