import { Injectable } from '@nestjs/common';
import type { ConversationEvent } from './conversation-event.entity.js';
import { EventSourceType } from './conversation.entity.js';
import { ConversationEventsRepository } from './conversation-events.repository.js';
import type {
  MessageContentPatch,
  MessagePricing,
  MessageRef,
  MovedEvent,
  OutboundEventRef,
  PricedEvent,
  SettledMediaEvent,
  StatusMove,
} from './message-events.js';

export type * from './message-events.js';

/**
 * The timeline's message events as other features use them (WhatsApp sends, statuses, inbound
 * messages and their changes, campaigns): operations on messages, never the table. Each runs in
 * the caller's transaction when there is one.
 */
@Injectable()
export class MessageEvents {
  constructor(private readonly events: ConversationEventsRepository) {}

  /** A WhatsApp message of a channel by the provider's id (Meta's wamid), or null. */
  findWhatsAppMessage(workspaceId: string, channelId: string, providerMessageId: string): Promise<ConversationEvent | null> {
    return this.events.findOne(workspaceId, { channelId, sourceType: EventSourceType.WhatsApp, sourceId: providerMessageId });
  }

  /** A WhatsApp message by our event id, or null. */
  findWhatsAppMessageById(workspaceId: string, id: string): Promise<ConversationEvent | null> {
    return this.events.findOne(workspaceId, { id, sourceType: EventSourceType.WhatsApp });
  }

  /** The messages of these provider ids that are recorded already (id and body), by provider id. */
  findBySources(
    workspaceId: string,
    sourceType: EventSourceType,
    sourceIds: readonly string[],
  ): Promise<Map<string, Pick<ConversationEvent, 'id' | 'body'>>> {
    return this.events.findBySources(workspaceId, sourceType, sourceIds);
  }

  /** A message by our event id, or by the WhatsApp provider's message id: an integrator may hold either. */
  findMessageRef(workspaceId: string, eventOrProviderId: string): Promise<MessageRef | null> {
    return this.events.findMessageRef(workspaceId, eventOrProviderId);
  }

  /** The message's status; null when it has none, undefined when there is no such event. */
  statusOf(workspaceId: string, id: string): Promise<string | null | undefined> {
    return this.events.statusOf(workspaceId, id);
  }

  /** Of these events, those still Pending (not yet handed to the provider). */
  stillPending(workspaceId: string, ids: readonly string[]): Promise<string[]> {
    return this.events.stillPending(workspaceId, ids);
  }

  /**
   * Serialises, until the caller's transaction ends, every transaction recording or changing these
   * messages of a channel (a redelivered webhook cannot record a message twice).
   */
  lockSources(channelId: string, sourceIds: readonly string[]): Promise<void> {
    return this.events.lockSources(channelId, sourceIds);
  }

  /** Rewrites what a message says (an edit or a deletion). */
  rewriteContent(workspaceId: string, id: string, patch: MessageContentPatch): Promise<void> {
    return this.events.rewriteContent(workspaceId, id, patch);
  }

  /** Moves an outbound message's status forward (only from one of `from`); the events moved. */
  moveOutboundStatus(workspaceId: string, ref: OutboundEventRef, move: StatusMove, from: readonly string[]): Promise<MovedEvent[]> {
    return this.events.moveOutboundStatus(workspaceId, ref, move, from);
  }

  /** {@link moveOutboundStatus} for many outbound events by id at once, each at most once with its own move; the events moved. */
  moveOutboundStatusesById(
    workspaceId: string,
    moves: ReadonlyArray<StatusMove & { eventId: string; from: readonly string[] }>,
  ): Promise<MovedEvent[]> {
    return this.events.moveOutboundStatusesById(workspaceId, moves);
  }

  /**
   * {@link moveOutboundStatus} for many WhatsApp messages of a channel at once, each provider id at
   * most once: the events moved, with their new status, and those whose status came late (after a
   * later one; `moved` false), the first time it came.
   */
  moveWhatsAppStatuses(
    workspaceId: string,
    channelId: string,
    moves: ReadonlyArray<StatusMove & { providerMessageId: string; from: readonly string[] }>,
  ): Promise<Array<MovedEvent & { status: string; moved: boolean }>> {
    return this.events.moveWhatsAppStatuses(workspaceId, channelId, moves);
  }

  /** {@link recordPricing} for many WhatsApp messages of a channel at once, each provider id at most once; the events priced now. */
  recordWhatsAppPricing(
    workspaceId: string,
    channelId: string,
    prices: ReadonlyArray<{ providerMessageId: string; pricing: MessagePricing }>,
  ): Promise<Array<PricedEvent & { source_id: string }>> {
    return this.events.recordWhatsAppPricing(workspaceId, channelId, prices);
  }

  /** Keeps Meta's pricing of an outbound message the first time a status carries it; the event when this call priced it. */
  recordPricing(workspaceId: string, ref: OutboundEventRef, pricing: MessagePricing): Promise<PricedEvent | undefined> {
    return this.events.recordPricing(workspaceId, ref, pricing);
  }

  /** The media status of an inbound message's file (undefined when none). */
  mediaStatusOf(workspaceId: string, id: string): Promise<string | undefined> {
    return this.events.mediaStatusOf(workspaceId, id);
  }

  /** Settles an inbound message's file (stored, or failed); the event when it was still waiting for it. */
  settleMedia(
    workspaceId: string,
    eventId: string,
    patch: Record<string, unknown>,
    durationOrSize: string | null,
  ): Promise<SettledMediaEvent | undefined> {
    return this.events.settleMedia(workspaceId, eventId, patch, durationOrSize);
  }

  /** Whether the contact wrote on the channel over WhatsApp since `since` (its customer service window is open). */
  hasInboundWhatsAppSince(workspaceId: string, channelId: string, contactId: string, since: Date): Promise<boolean> {
    return this.events.hasInboundWhatsAppSince(workspaceId, channelId, contactId, since);
  }

  /** {@link hasInboundWhatsAppSince} for a contact named by id or by number (a number no contact has: false). */
  hasInboundWhatsAppFrom(
    workspaceId: string,
    channelId: string,
    sender: { contactId: string } | { phoneNumber: string },
    since: Date,
  ): Promise<boolean> {
    return this.events.hasInboundWhatsAppFrom(workspaceId, channelId, sender, since);
  }

  /** Of these contacts, those whose service window on the channel is open. */
  withInboundWhatsAppSince(workspaceId: string, channelId: string, contactIds: readonly string[], since: Date): Promise<Set<string>> {
    return this.events.withInboundWhatsAppSince(workspaceId, channelId, contactIds, since);
  }

  /** Serialises, until the caller's transaction ends, the marketing sends to this contact (its count cap). */
  lockMarketingCount(workspaceId: string, contactId: string): Promise<void> {
    return this.events.lockMarketingCount(workspaceId, contactId);
  }

  /** {@link lockMarketingCount} for many contacts, in one order. */
  lockMarketingCounts(workspaceId: string, contactIds: readonly string[]): Promise<void> {
    return this.events.lockMarketingCounts(workspaceId, contactIds);
  }

  /** Marketing messages sent to the contact (by id or number) since `since`, not failed or cancelled. */
  countMarketingSince(workspaceId: string, recipient: { contactId: string } | { phoneNumber: string }, since: Date): Promise<number> {
    return this.events.countMarketingSince(workspaceId, recipient, since);
  }

  /** {@link countMarketingSince} for many contacts, by contact id. */
  countMarketingSinceMany(workspaceId: string, contactIds: readonly string[], since: Date): Promise<Map<string, number>> {
    return this.events.countMarketingSinceMany(workspaceId, contactIds, since);
  }
}
