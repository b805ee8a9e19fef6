import { Injectable } from '@nestjs/common';
import type { Principal } from '../../auth/principal.js';
import type { Channel } from '../../channels/channel.entity.js';
import { ChannelsService } from '../../channels/channels.service.js';
import { IdempotencyService } from '../../common/idempotency/idempotency.service.js';
import { PendingResponse } from '../../common/idempotency/stored-response.js';
import { isWhatsAppUserId } from '../../common/phone/whatsapp-user-id.js';
import { TimestampFormat } from '../../common/time/timestamp-format.js';
import { ContactIdentity } from '../../contacts/contact-identity.service.js';
import type { Contact } from '../../contacts/contact.entity.js';
import { ContactsService } from '../../contacts/contacts.service.js';
import type { LocationInfo } from '../../conversations/conversation-event.entity.js';
import { EventDirection, EventSourceType } from '../../conversations/conversation-enums.js';
import { ConversationsService } from '../../conversations/conversations.service.js';
import { MessageEvents, type MessageRef } from '../../conversations/message-events.service.js';
import { TimelineService } from '../../conversations/timeline.service.js';
import { inTransaction } from '../../database/transactions.js';
import { SendGovernor, type RecipientReservation } from '../../governor/send-governor.service.js';
import { Outbox, type OutboxEntry } from '../../queue/outbox.service.js';
import { JobName } from '../../queue/queue-names.js';
import { SendPolicyGate } from '../../send-policy/send-policy-gate.service.js';
import { ScheduledItemNotCancellable } from '../../send-policy/send-policy.errors.js';
import { labelOf, type Destination } from '../../send-policy/send-recipient.js';
import type { MarkAsReadDto, SendReactionDto } from '../dto/send-message.dto.js';
import type { SendRecipient } from '../dto/send-recipient.js';
import { SendMessageResultDto, type SendTemplateDto } from '../dto/send-template.dto.js';
import { FreeForm, markReadRequest, withStoredFile, type FreeFormMessage } from './free-form-message.js';
import { NO_PROVIDER_OUTCOME, outboundEvent } from './outbound-event.js';
import { buildTemplateMessage, templateAttachment, type CloudTemplateRequest } from '../templates/template-message.js';
import { TemplatesService } from '../templates/templates.service.js';
import { WhatsAppMediaService } from './whatsapp-media.service.js';
import { InvalidMessageId, MessageNotFound, ServiceWindowExpired } from '../whatsapp.errors.js';
import { addressed, addressOf, serviceWindowStart } from './addressing.js';

/**
 * The request path of a WhatsApp send: it validates, passes the send policy and the messaging
 * limit, and records a Pending (or Scheduled) outbound event with its outbox job atomically. The
 * worker's side is {@link SendDelivery}; the two meet only at the outbox row.
 */
@Injectable()
export class SendAcceptance {
  constructor(
    private readonly channels: ChannelsService,
    private readonly contacts: ContactsService,
    private readonly identities: ContactIdentity,
    private readonly conversations: ConversationsService,
    private readonly timeline: TimelineService,
    private readonly events: MessageEvents,
    private readonly templates: TemplatesService,
    private readonly outbox: Outbox,
    private readonly media: WhatsAppMediaService,
    private readonly policy: SendPolicyGate,
    private readonly governor: SendGovernor,
    private readonly idempotency: IdempotencyService,
  ) {}

  /**
   * `onAccepted` runs inside the transaction that records the send (a campaign links its recipient
   * there, so a send and its record commit or roll back together); throwing from it sends nothing.
   * `marks` go into the event's attachment beside the template's (a call permission request's).
   */
  async sendTemplate(
    principal: Principal,
    input: SendTemplateDto,
    onAccepted?: AcceptedHook,
    marks?: Record<string, unknown>,
  ): Promise<SendMessageResultDto> {
    const channel = await this.channels.getRecent(principal.workspaceId, input.channelId, 'whatsapp');
    const template = await this.templates.approved(channel, input.templateName, input.language);
    const { request, preview } = buildTemplateMessage(template, input.toNumber, input.parameters ?? []);
    return this.accept(principal, channel, input, request, preview, {
      attachment: { ...templateAttachment(template), ...marks },
      message: (to) => `Template '${template.name}' (${template.language}) accepted for delivery to ${to}.`,
      needsServiceWindow: false,
      businessInitiated: true,
      // API.md §13: a MARKETING template never goes to a contact opted out of marketing or over the frequency cap, and waits
      // out the contact's quiet hours; UTILITY and AUTHENTICATION do neither.
      marketing: template.category.toUpperCase() === 'MARKETING',
      onAccepted,
    });
  }

  /**
   * Text, media, interactive, location, contacts and reaction sends: only inside the 24 h service
   * window the contact opened by writing. A media send by uploaded file (`mediaId`) checks the file
   * here; the worker uploads it.
   */
  async sendFreeForm(
    principal: Principal,
    channelId: string,
    recipient: SendRecipient & SendWhen & { replyToMessageId?: string },
    message: FreeFormMessage,
  ): Promise<SendMessageResultDto> {
    const channel = await this.channels.getRecent(principal.workspaceId, channelId, 'whatsapp');
    const ready = message.media ? withStoredFile(message, await this.media.fileFor(principal.workspaceId, message.media)) : message;
    const request = recipient.replyToMessageId
      ? {
          ...ready.request,
          context: { message_id: (await this.messageInChat(principal, channel, recipient, 'replyToMessageId')).sourceId },
        }
      : ready.request;
    return this.accept(principal, channel, recipient, request, ready.preview, {
      attachment: { messageType: ready.messageType, ...ready.attachment },
      location: ready.location ?? null,
      media: ready.media && { fileId: ready.media.fileId },
      message: (to) => `${ready.messageType} message accepted for delivery to ${to}.`,
      needsServiceWindow: true,
    });
  }

  /**
   * Who a send goes to: a number (its contact is found or created with the send), a contact of the
   * workspace (by id: another workspace's is a 404; or by its BSUID), or a BSUID no contact has yet.
   */
  private async destination(workspaceId: string, recipient: SendRecipient): Promise<Destination> {
    if (recipient.contactId) return { kind: 'contact', contact: await this.contacts.get(workspaceId, recipient.contactId) };
    const to = recipient.toNumber!;
    if (!isWhatsAppUserId(to)) return { kind: 'phone', phoneNumber: to };
    const contact = await this.identities.findByWhatsAppUserId(workspaceId, to);
    return contact ? { kind: 'contact', contact } : { kind: 'new-user-id', userId: to };
  }

  /**
   * Send Reaction: `messageId` is our event of a WhatsApp message (either way) in the chat of this
   * contact on this channel that reached WhatsApp (it has the provider's id, which the reaction names).
   */
  async sendReaction(principal: Principal, input: SendReactionDto): Promise<SendMessageResultDto> {
    const channel = await this.channels.getRecent(principal.workspaceId, input.channelId, 'whatsapp');
    const target = await this.messageInChat(principal, channel, { ...input, replyToMessageId: input.messageId }, 'messageId');
    if (target.attachment?.messageType === 'Reaction') throw InvalidMessageId('messageId is a reaction: a reaction cannot be reacted to.');
    const message = FreeForm.reaction(input.toNumber, { eventId: target.id, providerMessageId: target.sourceId, emoji: input.emoji });
    return this.sendFreeForm(principal, channel.id, input, message);
  }

  /**
   * The message a reaction or a reply names (by our event id or the provider's): a WhatsApp message
   * of the recipient's chat on this channel that reached WhatsApp, whose provider id the send carries.
   */
  private async messageInChat(
    principal: Principal,
    channel: Readonly<Channel>,
    recipient: SendRecipient & { replyToMessageId?: string },
    member: 'messageId' | 'replyToMessageId',
  ): Promise<MessageRef & { sourceId: string }> {
    const target = await this.whatsAppMessage(principal.workspaceId, recipient.replyToMessageId!, member);
    const contact = await this.contacts.get(principal.workspaceId, target.contactId);
    const sameRecipient = recipient.contactId
      ? recipient.contactId === contact.id
      : recipient.toNumber === contact.phoneNumber || recipient.toNumber === contact.whatsAppUserId;
    if (target.channelId !== channel.id || !sameRecipient)
      throw InvalidMessageId(
        `${member} must be a message of the conversation with ${recipient.contactId ? 'contactId' : 'toNumber'} on this channel.`,
        [member],
      );
    if (!target.sourceId) throw InvalidMessageId(`${member} has not reached WhatsApp (it has no WhatsApp message id yet).`, [member]);
    return { ...target, sourceId: target.sourceId };
  }

  /**
   * Mark As Read: `messageId` is our event of an inbound WhatsApp message on the channel. Not bound
   * to the service window; the worker tells the provider (with the typing indicator if asked).
   */
  async markAsRead(principal: Principal, input: MarkAsReadDto): Promise<void> {
    const channel = await this.channels.getRecent(principal.workspaceId, input.channelId, 'whatsapp');
    const target = await this.whatsAppMessage(principal.workspaceId, input.messageId);
    if (target.channelId !== channel.id || target.direction !== EventDirection.Inbound || !target.sourceId)
      throw InvalidMessageId('messageId must be an inbound WhatsApp message of this channel.');
    const request = markReadRequest(target.sourceId, input.typingIndicator);
    await this.outbox.enqueue([
      { jobName: JobName.MarkWhatsAppMessageRead, workspaceId: principal.workspaceId, payload: { channelId: channel.id, request } },
    ]);
  }

  /** A WhatsApp message of the workspace by our event id (404 when unknown or another workspace's; 400 when not a WhatsApp message). */
  private async whatsAppMessage(
    workspaceId: string,
    id: string,
    member: 'messageId' | 'replyToMessageId' = 'messageId',
  ): Promise<MessageRef> {
    const event = await this.events.findMessageRef(workspaceId, id);
    if (!event) throw MessageNotFound();
    if (event.sourceType !== EventSourceType.WhatsApp) throw InvalidMessageId(`${member} must be a WhatsApp message.`, [member]);
    return event;
  }

  /**
   * The request path of every send: contact, open conversation, Pending event and outbox job,
   * atomically. Usually the contact and its conversation exist: one statement does it all.
   */
  private async accept(
    principal: Principal,
    channel: Readonly<Channel>,
    recipient: SendRecipient & SendWhen,
    content: Record<string, unknown> | CloudTemplateRequest,
    preview: string,
    options: {
      attachment: Record<string, unknown>;
      location?: LocationInfo | null;
      media?: { fileId: string };
      message: (to: string) => string;
      needsServiceWindow: boolean;
      marketing?: boolean;
      /** A template: it opens a business-initiated conversation unless the contact wrote in the last 24 h (the messaging limit counts those). */
      businessInitiated?: boolean;
      onAccepted?: AcceptedHook;
    },
  ): Promise<SendMessageResultDto> {
    const workspaceId = principal.workspaceId;
    const destination = await this.destination(workspaceId, recipient);
    const { dueAt, cap } = await this.policy.check(workspaceId, destination, recipient.sendAt, options.marketing === true);
    const address = addressOf(destination);
    const request = addressed(content, address);
    // A scheduled send's job waits in the queue until it is due (the outbox row keeps it across restarts).
    const job = (eventId: string): OutboxEntry<JobName.SendWhatsAppMessage> => ({
      jobName: JobName.SendWhatsAppMessage,
      workspaceId,
      runAt: dueAt,
      payload: {
        eventId,
        channelId: channel.id,
        request,
        ...(options.media ? { media: options.media } : {}),
        ...(dueAt ? { scheduled: true as const } : {}),
      },
    });
    const event = outboundEvent(principal.name ?? null, preview, options.attachment, dueAt, options.location);
    const inboundSince = options.needsServiceWindow ? serviceWindowStart() : null;
    const target =
      destination.kind === 'phone'
        ? { channelId: channel.id, phoneNumber: destination.phoneNumber, inboundSince }
        : destination.kind === 'contact'
          ? { channelId: channel.id, contactId: destination.contact.id, inboundSince }
          : undefined;
    const accepted = options.message(labelOf(destination));
    const message = dueAt ? `${accepted} It is scheduled for ${TimestampFormat.utc(dueAt)}.` : accepted;
    // With an Idempotency-Key, the answer is stored with the send (API.md §1): its ids are filled in by the write.
    const response = PendingResponse.of(workspaceId, () => SendMessageResultDto.accepted({ contactId: '', eventId: '' }, message, dueAt), {
      contactId: 'contactId',
      conversationEventId: 'eventId',
    });
    // A scheduled send is counted against the messaging limit when it leaves (admitScheduledTemplate), not now: the window is a rolling 24 h.
    const reservation = options.businessInitiated && !dueAt ? await this.reserveForMessagingLimit(channel, destination, address) : null;
    try {
      // Under a frequency cap the send is counted again inside its transaction, and `onAccepted` runs in it: both take that path.
      const inOpenConversation =
        target && !cap && !options.onAccepted && (await this.timeline.recordInOpenConversation(workspaceId, target, event, job, response));
      if (inOpenConversation) this.outbox.pushCommitted([inOpenConversation.job]);
      const result =
        inOpenConversation ||
        (await inTransaction(async () => {
          const contact = await this.contactOf(principal, destination);
          if (
            options.needsServiceWindow &&
            !(await this.events.hasInboundWhatsAppSince(workspaceId, channel.id, contact.id, serviceWindowStart()))
          )
            throw ServiceWindowExpired();
          if (cap) await this.policy.refuseOverCapLocked(workspaceId, contact.id, labelOf(destination), cap);
          const conversation = await this.conversations.findOrOpen(workspaceId, channel.id, contact.id);
          const recorded = await this.timeline.record(conversation, event);
          await this.outbox.enqueue([job(recorded.id)]);
          await options.onAccepted?.({ contactId: contact.id, eventId: recorded.id, scheduled: dueAt !== null });
          await this.idempotency.storeResponse(response, { contactId: contact.id, eventId: recorded.id });
          return { contactId: contact.id, eventId: recorded.id };
        }));
      return SendMessageResultDto.accepted(result, message, dueAt);
    } catch (err) {
      // Nothing was written: the recipient this send counted is not counted.
      await reservation?.release();
      throw err;
    }
  }

  /**
   * The messaging limit (API.md §13): a template to a recipient who has not written to the channel
   * in the last 24 h opens a business-initiated conversation, and counts that recipient in the
   * channel's rolling 24 h, or is a 429 `WhatsApp:MessagingLimitReached` when the limit is reached.
   */
  private async reserveForMessagingLimit(
    channel: Readonly<Channel>,
    destination: Destination,
    address: { to: string } | { recipient: string },
  ): Promise<RecipientReservation | null> {
    const recipient = 'to' in address ? address.to : address.recipient;
    // Most sends go to someone counted already (one Redis read); only the others ask the database whether the contact wrote.
    if (await this.governor.isRecipientCounted(channel, recipient, 'fail-fast')) return null;
    if (destination.kind !== 'new-user-id') {
      const sender = destination.kind === 'contact' ? { contactId: destination.contact.id } : { phoneNumber: destination.phoneNumber };
      if (await this.events.hasInboundWhatsAppFrom(channel.workspaceId, channel.id, sender, serviceWindowStart())) return null;
    }
    return this.governor.reserveRecipient(channel, recipient, 'fail-fast');
  }

  /**
   * DELETE /v1/scheduled: cancels a scheduled message of the workspace before it leaves (its job
   * then finds it Cancelled and sends nothing). False when the workspace has no outbound WhatsApp
   * message with this id; a message that was not scheduled, has left or was cancelled is a 409.
   */
  async cancelScheduled(workspaceId: string, eventId: string): Promise<boolean> {
    const [cancelled] = await this.events.moveOutboundStatus(workspaceId, { eventId }, NO_PROVIDER_OUTCOME('Cancelled'), ['Scheduled']);
    if (cancelled) return true;
    const event = await this.events.findMessageRef(workspaceId, eventId);
    if (!event || event.sourceType !== EventSourceType.WhatsApp || event.direction !== EventDirection.Outbound) return false;
    const status = await this.events.statusOf(workspaceId, eventId);
    throw ScheduledItemNotCancellable(
      eventId,
      status === 'Cancelled' ? 'it was cancelled already' : event.attachment?.scheduledFor ? 'it has left already' : 'it was not scheduled',
    );
  }

  /** The send's contact, in its transaction: found or created by number or BSUID, or the one named. */
  private async contactOf(principal: Principal, destination: Destination): Promise<Pick<Contact, 'id'>> {
    if (destination.kind === 'contact') return destination.contact;
    if (destination.kind === 'phone') return this.identities.findOrCreateByPhone(principal, destination.phoneNumber);
    return this.identities.findOrCreateByWhatsAppUserId(principal, destination.userId);
  }
}

/** Runs in the transaction that records an accepted send (see {@link SendAcceptance.sendTemplate}). */
export type AcceptedHook = (accepted: { contactId: string; eventId: string; scheduled: boolean }) => Promise<void>;

/** When a send leaves: `sendAt` as the request gave it (absent: now). */
interface SendWhen {
  sendAt?: string;
}
