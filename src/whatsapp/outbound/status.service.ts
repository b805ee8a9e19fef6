import { Injectable, Logger } from '@nestjs/common';
import type { Channel } from '../../channels/channel.entity.js';
import { ChannelsService } from '../../channels/channels.service.js';
import { TimestampFormat } from '../../common/time/timestamp-format.js';
import { MessageEvents, type MessagePricing, type MovedEvent, type OutboundEventRef } from '../../conversations/message-events.service.js';
import { Outbox, type OutboxEntry } from '../../queue/outbox.service.js';
import { JobName } from '../../queue/queue-names.js';
import { WebhookKind } from '../../webhooks/webhook-kind.js';
import { WebhookPublisher, type WebhookEvent } from '../../webhooks/webhook-publisher.js';
import type { StatusUpdate } from '../inbound/cloud-webhook.js';
import { EventSourceType } from '../../conversations/conversation-enums.js';
import { messageWebhookPayload, pricingView } from '../message-webhook.js';
import { ContactsService } from '../../contacts/contacts.service.js';
import { WhatsAppContactsService } from '../inbound/whatsapp-contacts.service.js';
import { RECIPIENT_OPTED_OUT } from '../providers/cloud-api-errors.js';
import { inTransaction } from '../../database/transactions.js';
import { RetryLaterError } from '../../queue/retry-later.js';
import { WhatsAppUsage } from '../account/usage.service.js';
import { StatementBatcher } from '../../common/batching/statement-batcher.js';

type Status = StatusUpdate['status'];

/** SendDelivery's ending of a send whose worker stopped while Meta was asked: it may have been sent. */
const SEND_INTERRUPTED = 'WhatsApp:SendInterrupted';

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

/** The provider's answer to one send, as {@link StatusService.recordSendOutcome} takes it. */
interface SendOutcomeMove {
  workspaceId: string;
  channel: Readonly<Channel> | null;
  eventId: string;
  change: StatusChange;
}

/** Send outcomes recorded in one transaction at most; and transactions of them at once (those answered meanwhile wait for the next). */
const OUTCOME_BATCH = { maxBatchSize: 64, maxInFlight: 2 };

/** Moves outbound WhatsApp events through their delivery statuses and tells the channel's webhook. */
@Injectable()
export class StatusService {
  private readonly logger = new Logger(StatusService.name);
  private readonly sendOutcomes = new StatementBatcher<SendOutcomeMove, boolean>((moves) => this.moveTogether(moves), OUTCOME_BATCH);

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
    const unrecorded = await this.applyMany(workspaceId, channelId, [update]);
    if (unrecorded.size > 0) {
      // Meta can report `delivered` before our worker has recorded the provider's answer (the id is not
      // stored yet): the notification is tried again (the intake's backoff: 1, 3, 7, 15 s), not lost.
      throw new RetryLaterError(`Status ${update.status} of WhatsApp message ${update.providerMessageId}, not recorded yet`);
    }
  }

  /**
   * Provider status notifications of one channel, in the order they came, applied together: the
   * pricing, the moves and their webhooks in one transaction and a few statements whatever their
   * number (a message's second status in the list is a second pass). A status that comes after a
   * later one (Meta's `delivered` after its `read`) moves nothing but still gets its webhook, once.
   * Returns the provider ids of the messages not recorded yet: their statuses changed nothing and
   * should come again later.
   */
  async applyMany(workspaceId: string, channelId: string, updates: readonly StatusUpdate[]): Promise<Set<string>> {
    const channel = await this.channels.getRecent(workspaceId, channelId);
    const webhookUrl = channel?.webhookUrl ?? null;
    const publishing = !!channel && (await this.webhooks.wanted(workspaceId, WebhookKind.WhatsAppMessage, channel.id, webhookUrl));
    const ids = [...new Set(updates.map((u) => u.providerMessageId))];
    const { moved, recorded } = await inTransaction(async () => {
      // Read first: a message the send worker records after this read is not missed (its status comes again).
      const recorded = await this.events.findBySources(workspaceId, EventSourceType.WhatsApp, ids);
      await this.recordPricing(workspaceId, channelId, updates);
      const moved: Array<{ event: MovedEvent; change: StatusUpdate }> = [];
      for (const pass of passesOf(updates, (update) => update.providerMessageId)) {
        const order = new Map(pass.map((update, index) => [update.providerMessageId, index]));
        const events = await this.events.moveWhatsAppStatuses(workspaceId, channelId, pass.map(whatsAppMove));
        // In the order the statuses came: their webhooks go out in it.
        events.sort((x, y) => order.get(x.source_id!)! - order.get(y.source_id!)!);
        for (const event of events) moved.push({ event, change: pass[order.get(event.source_id!)!] });
      }
      if (publishing && moved.length > 0) {
        await this.webhooks.publish(moved.map(({ event, change }) => this.webhookEvent(webhookUrl, channelId, event, change)));
      }
      // In the transaction: should it fail, the statuses come again with it.
      for (const { event, change } of moved) await this.optOutIfRefused(workspaceId, event, change);
      // A permission request Meta took and then reports failed never reached the user (API.md §15).
      await this.outbox.enqueue(moved.flatMap(({ event, change }) => unsentPermissionRequest(workspaceId, event, change)));
      return { moved, recorded };
    });
    for (const { event, change } of moved) {
      // Learning a BSUID is worth no retry of the statuses; one failing does not keep the others from it.
      await this.learnUserId(workspaceId, event, change).catch((err: unknown) =>
        this.logger.warn({ err }, `Contact ${event.contact_id} could not learn its WhatsApp user id`),
      );
    }
    const movedIds = new Set(moved.map(({ event }) => event.source_id));
    return new Set(ids.filter((id) => !movedIds.has(id) && !recorded.has(id)));
  }

  /**
   * Meta repeats a message's pricing on sent, delivered and read: the first kept is the one counted,
   * with the message, in the caller's transaction.
   */
  private async recordPricing(workspaceId: string, channelId: string, updates: readonly StatusUpdate[]): Promise<void> {
    const firstPriced = new Map<string, StatusUpdate & { pricing: MessagePricing }>();
    for (const update of updates) {
      if (update.pricing && !firstPriced.has(update.providerMessageId))
        firstPriced.set(update.providerMessageId, { ...update, pricing: update.pricing });
    }
    if (firstPriced.size === 0) return;
    const priced = await this.events.recordWhatsAppPricing(workspaceId, channelId, [...firstPriced.values()]);
    await this.usage.count(
      workspaceId,
      priced.map((event) => ({ event, at: new Date(firstPriced.get(event.source_id)!.at) })),
    );
  }

  /**
   * The send worker's record of a provider's answer (Sent, or Failed): {@link move} by event id, in
   * one transaction with the answers of the worker's other sends that came meanwhile (the event
   * moves, their conversations' stamps, webhook and outbox rows in a few statements whatever their
   * number). Whether the event moved.
   */
  recordSendOutcome(workspaceId: string, channel: Readonly<Channel> | null, eventId: string, change: StatusChange): Promise<boolean> {
    return this.sendOutcomes.add({ workspaceId, channel, eventId, change });
  }

  /**
   * {@link moveMany}; when the batch cannot be written, each outcome alone, so that one that cannot
   * be recorded fails its own send only (an error in its place rejects that caller).
   */
  private async moveTogether(moves: readonly SendOutcomeMove[]): Promise<Array<boolean | Error>> {
    try {
      return await this.moveMany(moves);
    } catch (err) {
      if (moves.length === 1) throw err;
      // One after another: the batcher's limit of statements in flight holds for the fallback too.
      const results: Array<boolean | Error> = [];
      for (const move of moves) {
        results.push(
          await this.moveMany([move]).then(
            ([moved]) => moved,
            (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
          ),
        );
      }
      return results;
    }
  }

  /**
   * Moves many events by id, each to its own status, in one transaction: the moves (one statement a
   * workspace and pass; an event named twice moves in a second pass), the webhooks of those whose
   * channel wants them, opt-outs; then the BSUIDs learnt. Whether each moved, in order.
   */
  private async moveMany(moves: readonly SendOutcomeMove[]): Promise<boolean[]> {
    const wanted = new Map<SendOutcomeMove, boolean>();
    for (const move of moves) {
      const { channel } = move;
      wanted.set(
        move,
        !!channel && (await this.webhooks.wanted(move.workspaceId, WebhookKind.WhatsAppMessage, channel.id, channel.webhookUrl ?? null)),
      );
    }
    const moved = await inTransaction(async () => {
      const movedBy = new Map<SendOutcomeMove, MovedEvent>();
      for (const pass of passesOf(moves, (move) => move.eventId)) {
        for (const [workspaceId, group] of groupedBy(pass, (move) => move.workspaceId)) {
          const events = await this.events.moveOutboundStatusesById(workspaceId, group.map(eventMove));
          const byId = new Map(events.map((event) => [event.id, event]));
          for (const move of group) {
            const event = byId.get(move.eventId);
            if (event) movedBy.set(move, event);
          }
        }
      }
      const published = [...movedBy]
        .filter(([move]) => wanted.get(move))
        .map(([move, event]) => this.webhookEvent(move.channel!.webhookUrl ?? null, move.channel!.id, event, move.change));
      if (published.length > 0) await this.webhooks.publish(published);
      for (const [move, event] of movedBy) await this.optOutIfRefused(move.workspaceId, event, move.change);
      await this.outbox.enqueue([...movedBy].flatMap(([move, event]) => unsentPermissionRequest(move.workspaceId, event, move.change)));
      return movedBy;
    });
    for (const [move, event] of moved) {
      await this.learnUserId(move.workspaceId, event, move.change).catch((err: unknown) =>
        this.logger.warn({ err }, `Contact ${event.contact_id} could not learn its WhatsApp user id`),
      );
    }
    return moves.map((move) => moved.has(move));
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
            if (moved) await this.webhooks.publish([this.webhookEvent(webhookUrl, channel.id, moved, change)]);
            return moved;
          });
    if (event) await this.afterMove(workspaceId, event, change);
    return event;
  }

  /** What a moved event changes elsewhere: {@link optOutIfRefused}, a permission request's end, then {@link learnUserId}. */
  private async afterMove(workspaceId: string, event: MovedEvent, change: StatusChange): Promise<void> {
    await this.optOutIfRefused(workspaceId, event, change);
    await this.outbox.enqueue(unsentPermissionRequest(workspaceId, event, change));
    await this.learnUserId(workspaceId, event, change);
  }

  /** Meta's 131050 (at the send or in a failed status): the recipient stopped marketing messages. */
  private async optOutIfRefused(workspaceId: string, event: MovedEvent, change: StatusChange): Promise<void> {
    if (change.status === 'Failed' && change.errorCode === RECIPIENT_OPTED_OUT) {
      await this.whatsAppContacts.providerOptedOut(workspaceId, event.contact_id);
    }
  }

  /** A message sent to a number reports the recipient's BSUID: the contact learns it (when it has none), in its own transaction. */
  private async learnUserId(workspaceId: string, event: MovedEvent, change: StatusChange): Promise<void> {
    const userId = change.recipientUserId;
    if (userId) await inTransaction(() => this.whatsAppContacts.learnUserId(workspaceId, event.contact_id, userId));
  }

  /** The WhatsApp Message Webhook of a status change, to the channel's webhookUrl and the endpoints that take it. */
  private webhookEvent(webhookUrl: string | null, channelId: string, event: MovedEvent, change: StatusChange): WebhookEvent {
    const messageType = (event.attachment?.messageType as string | undefined) ?? 'Text';
    return {
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
    };
  }
}

/** A status's move of its event, by provider id (forward only, see {@link MOVABLE_FROM}). */
function whatsAppMove(update: StatusUpdate) {
  return {
    providerMessageId: update.providerMessageId,
    status: update.status,
    errorCode: update.errorCode,
    failureReason: update.errorReason?.slice(0, 1000) ?? null,
    isBillable: update.isBillable ?? null,
    from: MOVABLE_FROM[update.status],
  };
}

/** The items in passes that name each message (its `keyOf`) at most once, a message's items in the order they came. */
function passesOf<T>(items: readonly T[], keyOf: (item: T) => string): T[][] {
  const passes: T[][] = [];
  const seen = new Map<string, number>();
  for (const item of items) {
    const key = keyOf(item);
    const pass = seen.get(key) ?? 0;
    seen.set(key, pass + 1);
    (passes[pass] ??= []).push(item);
  }
  return passes;
}

/** The items by `keyOf`, in the order each key first came. */
function groupedBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

/**
 * A WhatsApp call's permission request that failed for good: Meta refused it when it was sent, or
 * took it (a wamid) and then reported it `failed` in a status webhook; a send that may have reached
 * Meta (interrupted) is not one. The job that gives it back to Meta's limits and ends the calls
 * waiting for it, saying why in Meta's words (API.md §15). Nothing for any other message.
 */
function unsentPermissionRequest(workspaceId: string, event: MovedEvent, change: StatusChange): OutboxEntry[] {
  const requestId = event.attachment?.callPermissionRequest === true ? event.attachment.outboundIvrRequestId : undefined;
  if (change.status !== 'Failed' || typeof requestId !== 'string' || change.errorCode === SEND_INTERRUPTED) return [];
  const refusal = [change.errorCode, change.errorReason].filter(Boolean).join(': ') || 'WhatsApp refused the message.';
  const reason = change.providerMessageId ? `WhatsApp accepted it, then reported that it failed: ${refusal}` : refusal;
  return [{ jobName: JobName.CallPermissionRequestUnsent, workspaceId, payload: { requestId, reason } }];
}

/** A send outcome's move of its event, by id (forward only, see {@link MOVABLE_FROM}). */
function eventMove({ eventId, change }: SendOutcomeMove) {
  return {
    eventId,
    status: change.status,
    providerMessageId: change.providerMessageId,
    errorCode: change.errorCode,
    failureReason: change.errorReason?.slice(0, 1000) ?? null,
    isBillable: change.isBillable ?? null,
    from: MOVABLE_FROM[change.status],
  };
}
