import { Injectable, Logger } from '@nestjs/common';
import { ChannelsService } from '../../channels/channels.service.js';
import { newId } from '../../common/id.js';
import { TimestampFormat } from '../../common/time/timestamp-format.js';
import { MessageEvents } from '../../conversations/message-events.service.js';
import { EventDirection, EventSourceType } from '../../conversations/conversation-enums.js';
import { ConversationsService } from '../../conversations/conversations.service.js';
import { TimelineService } from '../../conversations/timeline.service.js';
import { Outbox, type OutboxEntry } from '../../queue/outbox.service.js';
import { JobName } from '../../queue/queue-names.js';
import { MediaStorage } from '../../storage/media-storage.js';
import { MediaNotFound } from '../../storage/storage.errors.js';
import { WebhookKind } from '../../webhooks/webhook-kind.js';
import { WebhookPublisher, type WebhookEvent } from '../../webhooks/webhook-publisher.js';
import { inboundContent, type InboundContent } from './inbound-content.js';
import { isMediaKind, type InboundMessage } from './inbound-message.js';
import { messageWebhookPayload, type WhatsAppMessageWebhookPayload } from '../message-webhook.js';
import { userPreferencesNotification } from './cloud-webhook.js';
import { InvalidSandboxMessage, NotASandboxChannel } from '../whatsapp.errors.js';
import { WhatsAppContactsService } from './whatsapp-contacts.service.js';
import { ContactConsent } from '../../contacts/contact-consent.service.js';
import type { WhatsAppIdentity } from '../../contacts/contact-identity.service.js';
import { SendPolicyService } from '../../send-policy/send-policy.service.js';
import { inTransaction } from '../../database/transactions.js';

export type { InboundMessage } from './inbound-message.js';

/**
 * Inbound messages: the contact and its open conversation (created if needed), an inbound timeline
 * event (which opens the 24 h service window), and the WhatsApp Message Webhook to the channel's
 * webhookUrl, all in one transaction. A message id seen before is ignored (providers redeliver). A
 * file still at the provider is fetched by the worker afterwards; its message's webhook waits for it.
 */
@Injectable()
export class InboundService {
  private readonly logger = new Logger(InboundService.name);

  constructor(
    private readonly events: MessageEvents,
    private readonly channels: ChannelsService,
    private readonly whatsAppContacts: WhatsAppContactsService,
    private readonly conversations: ConversationsService,
    private readonly timeline: TimelineService,
    private readonly storage: MediaStorage,
    private readonly webhooks: WebhookPublisher,
    private readonly outbox: Outbox,
    private readonly consents: ContactConsent,
    private readonly policy: SendPolicyService,
  ) {}

  async receive(workspaceId: string, channelId: string, message: InboundMessage): Promise<void> {
    await inTransaction(() => this.receiveMany(workspaceId, channelId, [message]));
  }

  /**
   * Records messages of one channel, in order, in the caller's transaction, with a few statements
   * for all of them rather than a few per message: their provider ids locked and those recorded
   * before left out, the senders, their open conversations, the events (and the conversations'
   * last-event fields), the consent words, then the webhooks and the downloads of files still at
   * the provider.
   */
  async receiveMany(workspaceId: string, channelId: string, messages: readonly InboundMessage[]): Promise<void> {
    const named = messages.filter((message) => {
      if (message.fromNumber || message.fromUserId || message.fromParentUserId) return true;
      // Nobody to record it for; trying again cannot help.
      this.logger.warn(`WhatsApp message ${message.providerMessageId} names no sender: ignored`);
      return false;
    });
    if (named.length === 0) return;
    const channel = await this.channels.getRecent(workspaceId, channelId, 'whatsapp');
    const events = this.events;
    // Serialise on the message ids so a redelivered webhook cannot record a message twice.
    const ids = named.map((message) => message.providerMessageId);
    await events.lockSources(channelId, ids);
    const before = await events.findBySources(workspaceId, EventSourceType.WhatsApp, ids);
    const fresh = [...new Map(named.filter((m) => !before.has(m.providerMessageId)).map((m) => [m.providerMessageId, m])).values()];
    if (fresh.length === 0) return;
    const senders = await this.whatsAppContacts.senders(
      workspaceId,
      fresh.map((message) => ({ identity: identityOf(message), providerMessageId: message.providerMessageId })),
    );
    const conversations = await this.conversations.findOrOpenRefs(
      workspaceId,
      channel.id,
      senders.map((contact) => contact.id),
    );
    // Reactions and replies name a message by its provider id: one recorded before, or earlier in this batch.
    const referenced = fresh.flatMap((m) => [m.reaction?.messageId, m.replyToMessageId].filter((id): id is string => !!id));
    const known = await events.findBySources(workspaceId, EventSourceType.WhatsApp, referenced);
    const recorded = [];
    for (const [i, message] of fresh.entries()) {
      const mediaFileId = message.media?.mediaFileId;
      const stored = mediaFileId ? await this.storage.findById(workspaceId, mediaFileId) : null;
      const reacted = message.reaction?.messageId ? known.get(message.reaction.messageId) : undefined;
      const content = inboundContent(message, stored, reacted?.id ?? null);
      const quoted = message.replyToMessageId ? known.get(message.replyToMessageId) : undefined;
      const id = newId();
      known.set(message.providerMessageId, { id, body: content.body });
      const echo = message.businessAppEcho === true;
      recorded.push({
        id,
        message,
        content,
        conversation: conversations.get(senders[i].id)!,
        input: {
          sourceType: EventSourceType.WhatsApp,
          // An echo is the business's own message, sent already: outbound, Sent, and never queued to send.
          direction: echo ? EventDirection.Outbound : EventDirection.Inbound,
          sourceId: message.providerMessageId,
          status: echo ? 'Sent' : 'Received',
          source: echo ? ('BusinessApp' as const) : null,
          body: content.body,
          creationTime: new Date(message.receivedAt),
          attachment: content.attachment,
          location: content.location,
          durationOrSize: content.durationOrSize,
          replyTo: message.replyToMessageId
            ? {
                repliedToEventId: quoted?.id ?? null,
                repliedToBody: quoted?.body ?? null,
                repliedToProviderMessageId: message.replyToMessageId,
              }
            : null,
          ...detailsOf(message),
        },
      });
    }
    await this.timeline.recordMany(recorded);
    await this.conversations.keepFirstReferrals(
      workspaceId,
      recorded.flatMap(({ message, conversation }) =>
        message.referral ? [{ conversationId: conversation.id, referral: message.referral }] : [],
      ),
    );
    const keywordIn = this.policy.keywordsOf(workspaceId);
    const webhooks: WebhookEvent[] = [];
    const jobs: OutboxEntry[] = [];
    for (const { id, message, content, conversation, input } of recorded) {
      const creationTime = input.creationTime;
      const echo = message.businessAppEcho === true;
      // A stop or start word from the customer: once per message, as the message is recorded once.
      const consent = message.type === 'text' && !echo ? await keywordIn(message.text) : null;
      if (consent) {
        await this.consents.set({ workspaceId, serviceAccountId: null, name: 'WhatsApp' }, conversation.contactId, {
          whatsAppMarketing: { status: consent, source: 'Keyword', at: creationTime, onlyIfNewer: true },
        });
      }
      // A user's answer to a call permission request is applied by a job once this transaction has
      // recorded the message (API.md §15): what it changes (waiting calls) never holds up or undoes the
      // message, and a redelivered message (recorded before) queues nothing again.
      const permission = echo ? undefined : message.callPermissionReply;
      // Kept under the user's number, or their BSUID when they share none (calls to them name it, API.md §15).
      const user = message.fromNumber ?? message.fromUserId;
      if (permission && user) {
        const { granted, permanent, expiresAt } = permission;
        jobs.push({
          jobName: JobName.ApplyCallPermissionReply,
          workspaceId,
          payload: { channelId: channel.id, userNumber: user, granted, permanent, expiresAt, at: creationTime.toISOString() },
        });
      }
      const webhook = messageWebhookPayload({
        workspaceId,
        channelId: channel.id,
        conversationId: conversation.id,
        contactId: conversation.contactId,
        eventId: id,
        providerMessageId: message.providerMessageId,
        action: 'Created',
        direction: echo ? 'Outbound' : 'Inbound',
        ...(echo ? { status: 'Sent', source: 'BusinessApp' as const } : {}),
        messageType: content.messageType,
        creationTime: TimestampFormat.utc(creationTime),
        whatsAppUserId: message.fromUserId ?? null,
        whatsAppUsername: message.username ?? null,
        profileName: message.profileName ?? null,
        replyTo: input.replyTo,
        referral: message.referral ?? null,
        referredProduct: message.referredProduct ?? null,
        forwarded: message.forwarded ?? false,
        frequentlyForwarded: message.frequentlyForwarded ?? false,
        ...content.webhook,
      });
      if (content.pendingMedia) {
        // Its webhook goes out once the file is stored, or given up.
        const download = downloadJob(workspaceId, channel.id, id, message, content, webhook);
        if (download) jobs.push(download);
      } else {
        // To the channel's URL and the endpoints that take it (nothing is written when neither exists).
        webhooks.push({ workspaceId, kind: WebhookKind.WhatsAppMessage, targetUrl: channel.webhookUrl ?? null, payload: { ...webhook } });
      }
    }
    await this.webhooks.publish(webhooks);
    await this.outbox.enqueue(jobs);
  }

  /**
   * Admin sandbox route: queue an inbound message on a sandbox channel as the provider would
   * deliver it. A file is named by `media.mediaFileId`, an upload of the channel's workspace.
   * Returns its message id.
   */
  async injectSandbox(channelId: string, message: Omit<InboundMessage, 'providerMessageId' | 'receivedAt'>): Promise<string> {
    const channel = await this.channels.findUnscopedForOperator(channelId);
    if (channel.whatsAppProvider !== 'sandbox') throw NotASandboxChannel('Inbound messages are injected only on sandbox channels.');
    checkSandboxMessage(message);
    const mediaFileId = message.media?.mediaFileId;
    if (mediaFileId && !(await this.storage.findById(channel.workspaceId, mediaFileId))) throw MediaNotFound();
    const reaction = message.reaction && (await this.reactedProviderId(channel.workspaceId, message.reaction));
    const providerMessageId = `wamid.sandbox.in.${newId()}`;
    await this.outbox.enqueue([
      {
        jobName: JobName.ReceiveWhatsAppMessage,
        workspaceId: channel.workspaceId,
        payload: {
          channelId: channel.id,
          message: { ...message, ...(reaction ? { reaction } : {}), providerMessageId, receivedAt: new Date().toISOString() },
        },
      },
    ]);
    return providerMessageId;
  }

  /**
   * Admin sandbox route: queue Meta's `user_preferences` notification (the user stopped or resumed
   * marketing messages) on a sandbox channel, processed as a delivered one is.
   */
  async injectSandboxPreference(
    channelId: string,
    user: { phoneNumber: string | null; userId: string | null },
    value: 'stop' | 'resume',
  ): Promise<void> {
    const channel = await this.channels.findUnscopedForOperator(channelId);
    if (channel.whatsAppProvider !== 'sandbox') throw NotASandboxChannel('User preferences are injected only on sandbox channels.');
    if (!user.phoneNumber && !user.userId)
      throw InvalidSandboxMessage('fromNumber or fromUserId is required.', ['fromNumber', 'fromUserId']);
    await this.outbox.enqueue([
      {
        jobName: JobName.ProcessWhatsAppWebhook,
        workspaceId: channel.workspaceId,
        payload: { channelId: channel.id, notification: userPreferencesNotification(user, value) },
      },
    ]);
  }

  /** A reaction may name the message by our event id: the provider's message id stands in, as in a real notification. */
  private async reactedProviderId(workspaceId: string, reaction: { messageId: string; emoji: string }) {
    if (!isUuid(reaction.messageId)) return reaction;
    const event = await this.events.findWhatsAppMessageById(workspaceId, reaction.messageId);
    return { ...reaction, messageId: event?.sourceId ?? reaction.messageId };
  }
}

/** What each type of injected message must carry, as Meta's notifications always do. */
function checkSandboxMessage(message: Omit<InboundMessage, 'providerMessageId' | 'receivedAt'>): void {
  if (!message.fromNumber && !message.fromUserId)
    throw InvalidSandboxMessage('fromNumber or fromUserId is required.', ['fromNumber', 'fromUserId']);
  const need = (present: unknown, member: string) => {
    if (present === undefined || present === null) throw InvalidSandboxMessage(`A ${message.type} message needs ${member}.`, [member]);
  };
  if (isMediaKind(message.type)) need(message.media?.mediaFileId, 'mediaId');
  else if (message.type === 'text') need(message.text, 'text');
  else if (message.type === 'location') need(message.location, 'location');
  else if (message.type === 'contacts') need(message.contacts, 'contacts');
  else if (message.type === 'reaction') need(message.reaction, 'reaction');
  else if (message.type === 'button' || message.type === 'interactive') need(message.payload ?? message.text, 'payload');
}

const isUuid = (value: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);

/** Attribution and forwarding, as the timeline event keeps them (absent: null). */
function detailsOf(message: InboundMessage) {
  return {
    referral: message.referral ?? null,
    referredProduct: message.referredProduct ?? null,
    forwarded: message.forwarded ?? null,
    frequentlyForwarded: message.frequentlyForwarded ?? null,
  };
}

/** Who sent a message, as contacts are matched: by number and BSUID, a new one named by the profile name. */
function identityOf(message: InboundMessage): WhatsAppIdentity {
  return {
    phoneNumber: message.fromNumber ?? null,
    userId: message.fromUserId ?? null,
    parentUserId: message.fromParentUserId ?? null,
    username: message.username ?? null,
    profileName: message.profileName ?? null,
  };
}

/** The job fetching a message's file from the provider (null for a kind that has none). */
function downloadJob(
  workspaceId: string,
  channelId: string,
  eventId: string,
  message: InboundMessage,
  content: InboundContent,
  webhook: WhatsAppMessageWebhookPayload,
): OutboxEntry | null {
  const media = message.media!;
  if (!isMediaKind(content.kind)) return null;
  return {
    jobName: JobName.DownloadWhatsAppMedia,
    workspaceId,
    payload: {
      eventId,
      channelId,
      media: {
        providerMediaId: media.providerMediaId!,
        kind: content.kind,
        mimeType: media.mimeType ?? null,
        sha256: media.sha256 ?? null,
        fileName: media.fileName ?? null,
      },
      webhook,
    },
  };
}
