import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { newId } from '../common/id.js';
import { ConversationEvent } from './conversation-event.entity.js';
import { Conversation } from './conversation.entity.js';

/** What the timeline needs of a conversation: which one, and whose. */
export type ConversationRef = Pick<Conversation, 'id' | 'workspaceId' | 'contactId' | 'channelId'>;

export type NewConversationEvent = Omit<Partial<ConversationEvent>, 'id' | 'workspaceId' | 'conversationId' | 'contactId' | 'channelId'> &
  Pick<ConversationEvent, 'sourceType' | 'direction'>;

const PREVIEW_LENGTH = 200;

/**
 * Records timeline events: the event and the conversation's last-event fields change in the
 * caller's transaction. The WhatsApp and IVR features write their messages and calls through it.
 */
@Injectable()
export class TimelineService {
  async record(manager: EntityManager, conversation: ConversationRef, input: NewConversationEvent): Promise<ConversationEvent> {
    const event = manager.create(ConversationEvent, {
      ...input,
      id: newId(),
      workspaceId: conversation.workspaceId,
      conversationId: conversation.id,
      contactId: conversation.contactId,
      channelId: conversation.channelId,
      creationTime: input.creationTime ?? new Date(),
    });
    await manager.insert(ConversationEvent, event as never);
    await manager
      .createQueryBuilder()
      .update(Conversation)
      .set({
        lastActivityAt: event.creationTime,
        lastEventSourceType: event.sourceType,
        lastEventDirection: event.direction,
        lastEventStatus: event.status ?? null,
        lastEventPreviewBody: event.body ? event.body.slice(0, PREVIEW_LENGTH) : null,
        lastEventOccurredAt: event.creationTime,
        lastEventsCount: () => 'last_events_count + 1',
      })
      .where('id = :id AND workspace_id = :workspaceId', { id: conversation.id, workspaceId: conversation.workspaceId })
      .execute();
    return event;
  }
}
