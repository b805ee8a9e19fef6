import { Injectable } from '@nestjs/common';
import type { EventSourceType } from './conversation-enums.js';
import { newId } from '../common/id.js';
import type { PendingResponse } from '../common/idempotency/stored-response.js';
import type { OutboxEntry, OutboxRow } from '../queue/outbox.service.js';
import type { ConversationEvent } from './conversation-event.entity.js';
import { ConversationEventsRepository, type OpenConversationEvent, type OpenConversationTarget } from './conversation-events.repository.js';
import type { Conversation } from './conversation.entity.js';
import { ConversationsRepository } from './conversations.repository.js';

/** What the timeline needs of a conversation: which one, and whose. */
export type ConversationRef = Pick<Conversation, 'id' | 'workspaceId' | 'contactId' | 'channelId'>;

export type NewConversationEvent = Omit<Partial<ConversationEvent>, 'id' | 'workspaceId' | 'conversationId' | 'contactId' | 'channelId'> &
  Pick<ConversationEvent, 'sourceType' | 'direction'>;

/** The fields {@link TimelineService.recordInOpenConversation} records. */
export type NewOpenConversationEvent = Omit<OpenConversationEvent, 'id' | 'creationTime'>;

/**
 * Records timeline events: the event and the conversation's last-event fields change together
 * (ConversationsRepository's one last-event statement). The WhatsApp and IVR features write their
 * messages and calls through it.
 */
@Injectable()
export class TimelineService {
  constructor(
    private readonly events: ConversationEventsRepository,
    private readonly conversations: ConversationsRepository,
  ) {}

  /** Records an event in the caller's transaction. */
  async record(conversation: ConversationRef, input: NewConversationEvent): Promise<ConversationEvent> {
    const events = this.events;
    const event = events.create(conversation.workspaceId, {
      ...input,
      id: newId(),
      conversationId: conversation.id,
      contactId: conversation.contactId,
      channelId: conversation.channelId,
      creationTime: input.creationTime ?? new Date(),
    });
    await events.insert(conversation.workspaceId, event);
    await this.conversations.stampLastEvent(conversation.workspaceId, conversation.id, event);
    return event;
  }

  /** Adds what was learned after the fact (a call's recording) to the attachment of the event standing for `sourceId`. */
  async annotate(workspaceId: string, sourceType: EventSourceType, sourceId: string, patch: Record<string, unknown>): Promise<void> {
    await this.events.mergeAttachmentBySource(workspaceId, sourceType, sourceId, patch);
  }

  /** A call's analysis as its timeline event's `aiSummary`. */
  async setAiSummary(
    workspaceId: string,
    sourceType: EventSourceType,
    sourceId: string,
    aiSummary: { summary: string | null; transcription: string | null },
  ): Promise<void> {
    await this.events.setAiSummaryBySource(workspaceId, sourceType, sourceId, aiSummary);
  }

  /**
   * {@link record} for many events in the caller's transaction, in two statements: the events, in
   * the order given, then each conversation's last-event fields (its last event of the list) and count.
   */
  async recordMany(
    entries: Array<{ id: string; conversation: ConversationRef; input: NewConversationEvent }>,
  ): Promise<ConversationEvent[]> {
    if (entries.length === 0) return [];
    const workspaceId = entries[0].conversation.workspaceId;
    const events = this.events;
    const recorded = entries.map(({ id, conversation, input }) =>
      events.create(conversation.workspaceId, {
        ...input,
        id,
        conversationId: conversation.id,
        contactId: conversation.contactId,
        channelId: conversation.channelId,
        creationTime: input.creationTime ?? new Date(),
      }),
    );
    await events.insertMany(workspaceId, recorded);
    const stamps = new Map<string, { conversationId: string; last: ConversationEvent; count: number }>();
    for (const event of recorded) {
      const stamp = stamps.get(event.conversationId);
      stamps.set(event.conversationId, { conversationId: event.conversationId, last: event, count: (stamp?.count ?? 0) + 1 });
    }
    await this.conversations.stampLastEvents(workspaceId, [...stamps.values()]);
    return recorded;
  }

  /**
   * {@link record} in one statement for the usual case: the contact (by number) has an open
   * conversation on the channel and, when `target.inboundSince` is set, wrote on it since then.
   * The event's job is written in the same statement. Writes nothing and returns undefined
   * otherwise, for the caller to take the general path. With `response` (an Idempotency-Key), the
   * statement stores the request's answer too.
   */
  async recordInOpenConversation(
    workspaceId: string,
    target: OpenConversationTarget,
    input: NewOpenConversationEvent,
    job: (eventId: string) => OutboxEntry,
    response?: PendingResponse,
  ): Promise<{ eventId: string; contactId: string; job: OutboxRow } | undefined> {
    const event = { ...input, id: newId(), creationTime: new Date() };
    const recorded = await this.events.recordInOpenConversation(workspaceId, target, event, job(event.id), response);
    return recorded && { eventId: event.id, ...recorded };
  }
}
