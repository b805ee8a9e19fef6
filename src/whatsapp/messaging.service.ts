import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable, Logger } from '@nestjs/common';
import { RetryLaterError } from '../queue/retry-later.js';
import type { Channel } from '../channels/channel.entity.js';
import { DomainError, NotFoundError } from '../common/errors/domain-error.js';
import type { Principal } from '../auth/principal.js';
import { ChannelsService } from '../channels/channels.service.js';
import { ContactsService } from '../contacts/contacts.service.js';
import { ContactIdentity } from '../contacts/contact-identity.service.js';
import { ContactConsent } from '../contacts/contact-consent.service.js';
import { MessageEvents, type MessageRef } from '../conversations/message-events.service.js';
import type { LocationInfo } from '../conversations/conversation-event.entity.js';
import { EventDirection, EventSourceType } from '../conversations/conversation-enums.js';
import { ConversationsService } from '../conversations/conversations.service.js';
import { TimelineService } from '../conversations/timeline.service.js';
import { Outbox, type OutboxEntry } from '../queue/outbox.service.js';
import { UNAUTHORIZED } from './providers/cloud-api-errors.js';
import { JobName } from '../queue/queue-names.js';
import { SendMessageResultDto, type SendTemplateDto } from './dto/send-template.dto.js';
import { CloudApiWhatsAppProvider } from './providers/cloud-api.provider.js';
import { SandboxWhatsAppProvider } from './providers/sandbox.provider.js';
import type { FinalSendOutcome, MarkReadOutcome, SendOutcome, WhatsAppProvider } from './providers/whatsapp-provider.js';
import { buildTemplateMessage, templateAttachment, type CloudTemplateRequest } from './template-message.js';
import { FreeForm, markReadRequest, withProviderMediaId, withStoredFile, type FreeFormMessage } from './free-form-message.js';
import type { MarkAsReadDto, SendReactionDto } from './dto/send-message.dto.js';
import type { SendRecipient } from './dto/send-recipient.js';
import { isWhatsAppUserId } from '../common/phone/whatsapp-user-id.js';
import type { Contact } from '../contacts/contact.entity.js';
import { InvalidMessageId, MESSAGING_LIMIT_REACHED, MessageNotFound, RecipientOptedOut, ServiceWindowExpired } from './whatsapp.errors.js';
import { WhatsAppMediaService } from './whatsapp-media.service.js';
import { outboundEvent } from './outbound-event.js';
import { TemplatesService } from './templates.service.js';
import { StatusService, type StatusChange } from './status.service.js';
import { SendPolicyService } from '../send-policy/send-policy.service.js';
import { SendScheduler } from '../send-policy/send-scheduler.service.js';
import type { ContactRef } from '../contacts/contact-property-values.service.js';
import type { FrequencyCap } from '../send-policy/send-policy.entity.js';
import { FrequencyCapReached, ScheduledItemNotCancellable } from '../send-policy/send-policy.errors.js';
import { TimestampFormat } from '../common/time/timestamp-format.js';
import { IdempotencyService } from '../common/idempotency/idempotency.service.js';
import { PendingResponse } from '../common/idempotency/stored-response.js';
import { newId } from '../common/id.js';
import { SEND_CLAIM_LEASE_MS, SendClaimsRepository } from './send-claims.repository.js';
import {
  CLOUD_PAIR_RATE_REACHED,
  CLOUD_THROUGHPUT_REACHED,
  SendGovernor,
  type RecipientReservation,
  type ReservedStart,
} from '../governor/send-governor.service.js';
import { inTransaction } from '../database/transactions.js';

/** The customer service window a contact's message opens for free-form sends. */
const SERVICE_WINDOW_MS = 24 * 3600 * 1000;

/** The earliest inbound message that still keeps the service window open now. */
export const serviceWindowStart = () => new Date(Date.now() - SERVICE_WINDOW_MS);

/**
 * The longest a send job sleeps in process before asking the governor again. Waiting holds one of
 * the worker's job slots, so only short waits are slept; a longer one (a pair-rate wait of up to
 * 6 s, a long line at a low tier) puts the job back in the queue, due when the governor said, and
 * frees the slot for other channels and recipients. A start the governor reserved (at most
 * a second ahead, `RESERVATION_HORIZON_MS`) is always waited for in process.
 */
const MAX_IN_PROCESS_WAIT_MS = 1000;

/**
 * WhatsApp sends: the request path validates and records a Pending outbound event with its outbox
 * job atomically, then hands the job to Bull; the worker calls the channel's provider and records
 * Sent or Failed (retrying passing failures), telling the channel's webhook.
 */
@Injectable()
export class MessagingService {
  private readonly logger = new Logger(MessagingService.name);

  constructor(
    private readonly channels: ChannelsService,
    private readonly contacts: ContactsService,
    private readonly identities: ContactIdentity,
    private readonly consents: ContactConsent,
    private readonly conversations: ConversationsService,
    private readonly timeline: TimelineService,
    private readonly events: MessageEvents,
    private readonly templates: TemplatesService,
    private readonly outbox: Outbox,
    private readonly sandbox: SandboxWhatsAppProvider,
    private readonly cloudApi: CloudApiWhatsAppProvider,
    private readonly statuses: StatusService,
    private readonly media: WhatsAppMediaService,
    private readonly policy: SendPolicyService,
    private readonly scheduler: SendScheduler,
    private readonly governor: SendGovernor,
    private readonly idempotency: IdempotencyService,
    private readonly sendClaims: SendClaimsRepository,
  ) {}

  /**
   * `onAccepted` runs inside the transaction that records the send (a campaign links its recipient
   * there, so a send and its record commit or roll back together); throwing from it sends nothing.
   */
  async sendTemplate(principal: Principal, input: SendTemplateDto, onAccepted?: AcceptedHook): Promise<SendMessageResultDto> {
    const channel = await this.channels.getRecent(principal.workspaceId, input.channelId, 'whatsapp');
    const template = await this.templates.approved(channel, input.templateName, input.language);
    const { request, preview } = buildTemplateMessage(template, input.toNumber, input.parameters ?? []);
    return this.accept(principal, channel, input, request, preview, {
      attachment: templateAttachment(template),
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
    const { dueAt, cap } = await this.checkPolicy(workspaceId, destination, recipient.sendAt, options.marketing === true);
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
          if (cap) await this.refuseOverCapLocked(workspaceId, contact.id, labelOf(destination), cap);
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
   * The send policy before anything is written (API.md §13): a marketing template is refused to a
   * contact opted out or over the frequency cap, and waits for the end of the contact's quiet
   * hours; any send waits for its `sendAt`. Returns when it is due (null: now). Only a marketing
   * send reads the policy. (Public for the campaigns' batch of sends, which checks each recipient the same way.)
   */
  async checkPolicy(
    workspaceId: string,
    destination: Destination,
    sendAt: string | undefined,
    marketing: boolean,
  ): Promise<{ dueAt: Date | null; cap: FrequencyCap | null }> {
    const recipient = zoneSubjectOf(destination);
    if (!marketing) return { dueAt: await this.scheduler.dueAt(workspaceId, { scope: null, recipient, sendAt }), cap: null };
    await this.refuseOptedOut(workspaceId, destination);
    const settings = await this.policy.settings(workspaceId);
    const dueAt = await this.scheduler.dueAt(workspaceId, { scope: 'Marketing', recipient, sendAt }, settings);
    await this.refuseOverCap(workspaceId, destination, settings.frequencyCap);
    return { dueAt, cap: settings.frequencyCap };
  }

  /** A marketing template beyond the frequency cap for this contact is a 400 (a BSUID no contact has yet was sent nothing). */
  private async refuseOverCap(workspaceId: string, destination: Destination, cap: FrequencyCap | null): Promise<void> {
    if (!cap || destination.kind === 'new-user-id') return;
    const { count, days } = cap.marketingPerDays;
    const recipient = destination.kind === 'contact' ? { contactId: destination.contact.id } : { phoneNumber: destination.phoneNumber };
    const sent = await this.events.countMarketingSince(workspaceId, recipient, new Date(Date.now() - days * DAY_MS));
    if (sent >= count) throw FrequencyCapReached(labelOf(destination), cap.marketingPerDays);
  }

  /**
   * The cap counted again in the send's transaction, under the contact's lock, just before the send
   * is recorded: of two marketing sends at once, the second sees the first.
   */
  private async refuseOverCapLocked(workspaceId: string, contactId: string, label: string, cap: FrequencyCap): Promise<void> {
    const events = this.events;
    await events.lockMarketingCount(workspaceId, contactId);
    const { count, days } = cap.marketingPerDays;
    const sent = await events.countMarketingSince(workspaceId, { contactId }, new Date(Date.now() - days * DAY_MS));
    if (sent >= count) throw FrequencyCapReached(label, cap.marketingPerDays);
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

  /**
   * A marketing send to a contact opted out of WhatsApp marketing is a 400, before anything is
   * written. A contact named by id or BSUID is at hand; a number costs one indexed read.
   */
  private async refuseOptedOut(workspaceId: string, destination: Destination): Promise<void> {
    const status =
      destination.kind === 'contact'
        ? destination.contact.whatsAppMarketingConsent
        : destination.kind === 'phone'
          ? await this.consents.ofPhone(workspaceId, destination.phoneNumber, 'whatsAppMarketing')
          : 'Unknown';
    if (status === 'OptedOut') throw RecipientOptedOut(labelOf(destination));
  }

  /** The send's contact, in its transaction: found or created by number or BSUID, or the one named. */
  private async contactOf(principal: Principal, destination: Destination): Promise<Pick<Contact, 'id'>> {
    if (destination.kind === 'contact') return destination.contact;
    if (destination.kind === 'phone') return this.identities.findOrCreateByPhone(principal, destination.phoneNumber);
    return this.identities.findOrCreateByWhatsAppUserId(principal, destination.userId);
  }

  /**
   * Worker: sends a Pending event through its channel's provider, once. A passing provider failure
   * throws RetryLaterError (Bull tries again, not before the provider's Retry-After); on the last
   * attempt it ends the event Failed like a permanent one. With `media`, the file is uploaded to
   * the provider first (once per channel and file) and sent by the provider's id.
   */
  async deliver(
    workspaceId: string,
    eventId: string,
    channelId: string,
    request: Record<string, unknown>,
    attempt: DeliveryAttempt,
  ): Promise<void> {
    const asksProvider = !attempt.earlierOutcome && !attempt.interrupted;
    // The status decides up front only for a scheduled send (due now, or cancelled) and a run that asks nothing;
    // a run that asks reads it with its claim (askInTurn), one statement fewer for every send.
    if ((attempt.scheduled || !asksProvider) && !(await this.pendingNow(workspaceId, eventId, channelId, request))) return;
    const recipient = recipientOf(request);
    const governed = await this.channelOrNull(this.channels.getRecent(workspaceId, channelId));
    const asked: AskedProvider | null = asksProvider
      ? await this.askInTurn(workspaceId, channelId, eventId, request, governed, attempt)
      : { channel: governed, outcome: attempt.earlierOutcome ?? SEND_INTERRUPTED };
    if (!asked) return; // not Pending (another run of this send finished it, or it was cancelled), or back in the queue
    const { channel, outcome } = asked;
    if (outcome.kind === 'retry' && !attempt.lastAttempt) {
      if (asked.holder) await this.sendClaims.release(workspaceId, eventId, asked.holder);
      // Meta's own rate limits: the governor slows the channel (130429) or holds the pair (131056), and the message waits at least that long.
      const rateLimited = outcome.cloudErrorCode === CLOUD_THROUGHPUT_REACHED || outcome.cloudErrorCode === CLOUD_PAIR_RATE_REACHED;
      const holdMs =
        rateLimited && governed && recipient ? await this.governor.rateLimited(governed, recipient, outcome.cloudErrorCode) : 0;
      throw new RetryLaterError(
        `WhatsApp provider: ${outcome.errorCode} ${outcome.failureReason}`,
        Math.max(outcome.retryAfterMs ?? 0, holdMs) || undefined,
      );
    }
    const final: FinalSendOutcome = outcome.kind === 'retry' ? { ...outcome, kind: 'failed' } : outcome;
    const change: StatusChange =
      final.kind === 'sent'
        ? { status: 'Sent', providerMessageId: final.providerMessageId, errorCode: null, errorReason: null }
        : { status: 'Failed', providerMessageId: null, errorCode: final.errorCode, errorReason: final.failureReason };
    try {
      await this.statuses.move(workspaceId, channel, { eventId }, change);
    } catch (err) {
      // The provider has answered but the status is not written (the database is out of reach): the retry records this answer.
      if (!attempt.earlierOutcome) await attempt.keepOutcome(final).catch(() => undefined);
      throw err;
    }
    if (final.kind !== 'sent') this.logger.warn(`WhatsApp message ${eventId} failed: ${final.errorCode} ${final.failureReason}`);
  }

  /**
   * Whether the message is Pending now. A scheduled send now due moves to Pending here (a
   * cancellation that came first wins, and nothing leaves), and a template is admitted against the
   * messaging limit when it leaves; one already sent (a retried job), cancelled or gone is not.
   */
  private async pendingNow(workspaceId: string, eventId: string, channelId: string, request: Record<string, unknown>): Promise<boolean> {
    const status = await this.events.statusOf(workspaceId, eventId);
    if (status !== 'Scheduled') return status === 'Pending';
    const [moved] = await this.events.moveOutboundStatus(workspaceId, { eventId }, NO_PROVIDER_OUTCOME('Pending'), ['Scheduled']);
    if (!moved) return false;
    return request.type !== 'template' || this.admitScheduledTemplate(workspaceId, eventId, channelId, request);
  }

  /**
   * One run of a send that asks the provider: claims the message ({@link SendClaimsRepository.claim},
   * reading its status), takes the governor's turn for the channel and recipient (a start reserved
   * up to a second ahead), waits for that start, marks the job as asking the provider in this
   * attempt, then asks, spaced from this process's last send on the channel when it came late (see
   * `SendGovernor.spaceFromLastSend`), so the provider sees the sends spaced about as the governor
   * planned them.
   *
   * A worker that dies while the provider is asked (`kill -9`, a lost machine) leaves the mark, and
   * the run that takes the stalled job over ends the message {@link SEND_INTERRUPTED} instead of
   * asking again: the Cloud API has no idempotency key, so whether the first request got through
   * cannot be known, and a message is never sent twice. One that dies before the mark leaves only
   * its claim, under the name of this attempt of this job (`attempt.run`), and the run taking the
   * job over, finding its own name, takes the claim over and asks. A long governor wait gives the
   * claim up and puts the job back in the queue (null then); so does an error before the provider
   * answered, for the next attempt.
   */
  private async askInTurn(
    workspaceId: string,
    channelId: string,
    eventId: string,
    request: Record<string, unknown>,
    governed: Readonly<Channel> | null,
    attempt: DeliveryAttempt,
  ): Promise<AskedProvider | null> {
    const run = attempt.run ?? newId();
    let claim = await this.sendClaims.claim(workspaceId, eventId, run);
    if (claim.status === 'Scheduled') {
      // A job queued without its `scheduled` flag (by a version before it): the same steps as with it, then the claim.
      if (!(await this.pendingNow(workspaceId, eventId, channelId, request))) return null;
      claim = await this.sendClaims.claim(workspaceId, eventId, run);
    }
    if (claim.status !== 'Pending') return null;
    if (claim.holder !== run) {
      this.waitForClaimHolder(claim.since, attempt.lastAttempt);
      return { channel: governed, outcome: SEND_INTERRUPTED };
    }
    const release = () => this.sendClaims.release(workspaceId, eventId, run);
    try {
      const recipient = recipientOf(request);
      const turn = governed && recipient ? await this.governorTurn(governed, recipient) : null;
      if (turn && 'comeBackInMs' in turn) {
        await release();
        const payload = { eventId, channelId, request, ...(attempt.media ? { media: attempt.media } : {}) };
        const runAt = new Date(Date.now() + turn.comeBackInMs);
        await this.outbox.enqueue([{ jobName: JobName.SendWhatsAppMessage, workspaceId, runAt, payload }]);
        return null;
      }
      // Marked only once its start is due: a worker that dies while waiting for it leaves a send that was never asked.
      if (turn) await this.governor.waitForStart(turn);
      await attempt.markSending();
      // After the mark (which may wait for one of the worker's provider calls to end), so nothing bunches the requests after it.
      if (turn) await this.governor.spaceFromLastSend(channelId, turn);
      const asked = await this.withFreshCredentials(workspaceId, channelId, (current) => this.sendThrough(current, request, attempt.media));
      return { ...asked, holder: run };
    } catch (err) {
      await release().catch(() => undefined);
      throw err;
    }
  }

  /**
   * The database's side of "never sent twice": the Redis mark (see askInTurn) covers a worker that dies, but
   * not two runs of one send at once (the outbox pushes a job again when Redis came back empty while
   * its first run was still asking the provider). Of such runs, the one that claims the message asks
   * ({@link SendClaimsRepository.claim}); another finds it finished, or comes back (RetryLaterError)
   * when the claim's lease ends, after which, or on its last attempt, the holder counts as dead and
   * the message ends {@link SEND_INTERRUPTED}.
   */
  private waitForClaimHolder(since: Date | null, lastAttempt: boolean): void {
    // No time seen: the other run's claim committed while this statement waited on the key (its snapshot predates it), so it is fresh.
    const leaseLeftMs = (since?.getTime() ?? Date.now()) + SEND_CLAIM_LEASE_MS - Date.now();
    if (leaseLeftMs > 0 && !lastAttempt)
      throw new RetryLaterError('Another run of this send is asking the provider', Math.max(1000, leaseLeftMs));
  }

  /**
   * The messaging limit for a scheduled template, counted when it leaves rather than when it was
   * accepted (the limit is a rolling 24 h). Over the limit it ends Failed with
   * `WhatsApp:MessagingLimitReached` (nobody is left to answer a 429) and answers false.
   */
  private async admitScheduledTemplate(
    workspaceId: string,
    eventId: string,
    channelId: string,
    request: Record<string, unknown>,
  ): Promise<boolean> {
    const [event, channel] = await Promise.all([
      this.events.findMessageRef(workspaceId, eventId),
      this.channelOrNull(this.channels.getRecent(workspaceId, channelId)),
    ]);
    const recipient = recipientOf(request);
    if (!event || !channel || !recipient) return true; // the send fails its own way
    if (await this.events.hasInboundWhatsAppFrom(workspaceId, channelId, { contactId: event.contactId }, serviceWindowStart())) return true;
    try {
      await this.governor.reserveRecipient(channel, recipient);
      return true;
    } catch (err) {
      if (!(err instanceof DomainError && err.code === MESSAGING_LIMIT_REACHED)) throw err;
      const change: StatusChange = {
        status: 'Failed',
        providerMessageId: null,
        errorCode: MESSAGING_LIMIT_REACHED,
        errorReason: err.message,
      };
      await this.statuses.move(workspaceId, channel, { eventId }, change);
      return false;
    }
  }

  /**
   * Takes the governor's turn (API.md §13: the channel's throughput, the recipient's pair rate):
   * asks again after a short wait; answers the start reserved for the message, or, when the wait
   * is long, how long until the job should come back (see {@link MAX_IN_PROCESS_WAIT_MS}).
   */
  private async governorTurn(channel: Readonly<Channel>, recipient: string): Promise<ReservedStart | { comeBackInMs: number }> {
    for (;;) {
      const turn = await this.governor.messageStart(channel, recipient);
      if (turn.reserved) return turn;
      if (turn.askAgainInMs > MAX_IN_PROCESS_WAIT_MS) return { comeBackInMs: turn.askAgainInMs };
      await sleep(turn.askAgainInMs);
    }
  }

  /** Worker: Mark As Read at the channel's provider; passing failures are retried, others (and the last attempt's) only logged. */
  async markRead(workspaceId: string, channelId: string, request: Record<string, unknown>, lastAttempt: boolean): Promise<void> {
    const { outcome } = await this.withFreshCredentials(workspaceId, channelId, (channel): Promise<MarkReadOutcome> => {
      if (!channel?.whatsAppProvider) return Promise.resolve(CHANNEL_GONE);
      return this.provider(channel.whatsAppProvider).markRead(channel, request);
    });
    if (outcome.kind === 'retry' && !lastAttempt) {
      throw new RetryLaterError(`WhatsApp provider: ${outcome.errorCode} ${outcome.failureReason}`, outcome.retryAfterMs);
    }
    if (outcome.kind !== 'done')
      this.logger.warn(`Mark As Read of ${String(request.message_id)} failed: ${outcome.errorCode} ${outcome.failureReason}`);
  }

  /**
   * Runs a provider call with the channel as this process knows it; when the provider refuses the
   * token (which may be a cached channel's old one), reads the channel afresh and, if its
   * credentials changed, tries once more with them.
   */
  private async withFreshCredentials<O extends { kind: string; errorCode?: string }>(
    workspaceId: string,
    channelId: string,
    call: (channel: Readonly<Channel> | null) => Promise<O>,
  ): Promise<{ channel: Readonly<Channel> | null; outcome: O }> {
    let channel = await this.channelOrNull(this.channels.getRecent(workspaceId, channelId));
    let outcome = await call(channel);
    if (outcome.kind === 'failed' && outcome.errorCode === UNAUTHORIZED && channel) {
      const fresh = await this.channelOrNull(this.channels.get(workspaceId, channelId));
      if (fresh?.whatsAppCredentialsSealed !== channel.whatsAppCredentialsSealed) {
        this.channels.forgetRecent(workspaceId, channelId);
        channel = fresh;
        outcome = await call(channel);
      }
    }
    return { channel, outcome };
  }

  /** A deleted channel is null (the message ends Failed); any other error (the database) lets Bull retry. */
  private channelOrNull(lookup: Promise<Readonly<Channel>>): Promise<Readonly<Channel> | null> {
    return lookup.catch((err: unknown) => {
      if (err instanceof NotFoundError) return null;
      throw err;
    });
  }

  private async sendThrough(
    channel: Readonly<Channel> | null,
    request: Record<string, unknown>,
    media?: { fileId: string },
  ): Promise<SendOutcome> {
    if (!channel?.whatsAppProvider) return CHANNEL_GONE;
    const provider = this.provider(channel.whatsAppProvider);
    if (!media) return provider.send(channel, request);
    const upload = await this.media.providerMediaId(channel, provider, media.fileId);
    if (upload.kind !== 'uploaded') return upload;
    return provider.send(channel, withProviderMediaId(request, upload.providerMediaId));
  }

  private provider(name: string): WhatsAppProvider {
    return name === 'cloud-api' ? this.cloudApi : this.sandbox;
  }
}

/** Runs in the transaction that records an accepted send (see {@link MessagingService.sendTemplate}). */
export type AcceptedHook = (accepted: { contactId: string; eventId: string; scheduled: boolean }) => Promise<void>;

/** What a run of a send got: the provider's answer (or an outcome without asking), the channel as asked, and this run's claim when it asked. */
interface AskedProvider {
  channel: Readonly<Channel> | null;
  outcome: SendOutcome;
  holder?: string;
}

/** One attempt of the send job, as {@link MessagingService.deliver} runs it. */
export interface DeliveryAttempt {
  lastAttempt: boolean;
  /** The message was recorded Scheduled: its status is read before the claim. */
  scheduled?: boolean;
  /**
   * This attempt of this job (its id, its creation time in the queue and Bull's attempt count): the
   * name its claim is held under. A stalled job run again keeps it; a job pushed again by the outbox
   * (a new job in Redis) does not. A run of its own when absent.
   */
  run?: string;
  media?: { fileId: string };
  /** The provider's answer to an earlier attempt that could not record it: recorded now, nothing is sent. */
  earlierOutcome?: FinalSendOutcome;
  /** An earlier run of this attempt was asking the provider when its worker died: the message ends {@link SEND_INTERRUPTED}, nothing is sent. */
  interrupted?: boolean;
  /** Keeps the provider's answer with the job (in Redis) when recording it fails. */
  keepOutcome: (outcome: FinalSendOutcome) => Promise<unknown>;
  /** Marks the job (in Redis) as asking the provider in this attempt. */
  markSending: () => Promise<unknown>;
}

/** When a send leaves: `sendAt` as the request gave it (absent: now). */
interface SendWhen {
  sendAt?: string;
}

const DAY_MS = 24 * 3600 * 1000;

/** A status move the provider had no part in (scheduling). */
const NO_PROVIDER_OUTCOME = (status: string) => ({ status, providerMessageId: null, errorCode: null, failureReason: null });

/** Whose time zone a send follows: the contact's (by id) or the number's. */
function zoneSubjectOf(destination: Destination): ContactRef {
  if (destination.kind === 'contact') return { contactId: destination.contact.id, phoneNumber: destination.contact.phoneNumber };
  return { phoneNumber: destination.kind === 'phone' ? destination.phoneNumber : null };
}

/** Where a send goes, once resolved. */
export type Destination =
  { kind: 'phone'; phoneNumber: string } | { kind: 'contact'; contact: Contact } | { kind: 'new-user-id'; userId: string };

/** The Cloud API's addressing (API.md §7.1): `to` the number when the contact has one, else `recipient` the BSUID. */
export function addressOf(destination: Destination): { to: string } | { recipient: string } {
  const digits = (e164: string) => e164.replace(/^\+/, '');
  if (destination.kind === 'phone') return { to: digits(destination.phoneNumber) };
  if (destination.kind === 'new-user-id') return { recipient: destination.userId };
  const { phoneNumber, whatsAppUserId } = destination.contact;
  return phoneNumber ? { to: digits(phoneNumber) } : { recipient: whatsAppUserId! };
}

/** A message body addressed to the destination: the addressing fields replaced, in Meta's order. */
export function addressed(request: Record<string, unknown>, address: { to: string } | { recipient: string }): Record<string, unknown> {
  const { messaging_product, recipient_type, to: _to, recipient: _recipient, ...content } = request;
  return { messaging_product, recipient_type, ...address, ...content };
}

/** Whom a Cloud API message body goes to (`to` or `recipient`), for the pair rate. */
function recipientOf(request: Record<string, unknown>): string | null {
  const to = request.to ?? request.recipient;
  return typeof to === 'string' && to ? to : null;
}

/** How the answer names the recipient. */
export function labelOf(destination: Destination): string {
  if (destination.kind === 'phone') return destination.phoneNumber;
  if (destination.kind === 'new-user-id') return destination.userId;
  return destination.contact.phoneNumber ?? destination.contact.whatsAppUserId ?? destination.contact.id;
}

/** The outcome of a send whose worker died while the provider was being asked (see MessagingService.askInTurn). */
export const SEND_INTERRUPTED = {
  kind: 'failed',
  errorCode: 'WhatsApp:SendInterrupted',
  failureReason:
    'The worker sending this message stopped while the provider was being asked; the message may have been delivered, and is not sent again so that it is never sent twice.',
} as const;

const CHANNEL_GONE = {
  kind: 'failed',
  errorCode: 'Channels:ChannelNotFound',
  failureReason: 'The channel was deleted or has no WhatsApp.',
} as const;
