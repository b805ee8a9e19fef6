import { Injectable } from '@nestjs/common';
import { DataSource, In } from 'typeorm';
import { Channel } from '../channels/channel.entity.js';
import { formatTimestamp, TimestampFormat } from '../common/time/timestamp-format.js';
import { Contact } from '../contacts/contact.entity.js';
import { TagDto } from '../tags/dto/tag.dto.js';
import { Tag } from '../tags/tag.entity.js';
import { WorkspaceUser } from '../workspaces/workspace-user.entity.js';
import { ConversationTag } from './conversation-tag.entity.js';
import type { Conversation } from './conversation.entity.js';
import type { ConversationDto } from './dto/conversation.dto.js';

/** ConversationDto for any number of conversations in a fixed number of queries. */
@Injectable()
export class ConversationViews {
  constructor(private readonly dataSource: DataSource) {}

  async one(conversation: Conversation): Promise<ConversationDto> {
    return (await this.many([conversation]))[0];
  }

  async many(conversations: Conversation[]): Promise<ConversationDto[]> {
    if (conversations.length === 0) return [];
    const workspaceId = conversations[0].workspaceId;
    const ids = conversations.map((c) => c.id);
    const userIds = [...new Set(conversations.flatMap((c) => [c.assigneeUserId, c.assignedAiAgentId]).filter((id): id is string => !!id))];
    const [contacts, channels, users, tagLinks] = await Promise.all([
      this.dataSource.getRepository(Contact).find({ where: { workspaceId, id: In([...new Set(conversations.map((c) => c.contactId))]) } }),
      this.dataSource
        .getRepository(Channel)
        .find({ where: { workspaceId, id: In([...new Set(conversations.map((c) => c.channelId))]) }, withDeleted: true }),
      userIds.length
        ? this.dataSource.getRepository(WorkspaceUser).find({ where: { workspaceId, userId: In(userIds) } })
        : Promise.resolve([]),
      this.dataSource
        .getRepository(ConversationTag)
        .createQueryBuilder('ct')
        .innerJoinAndMapOne('ct.tag', Tag, 't', 't.id = ct.tag_id')
        .where('ct.workspace_id = :workspaceId AND ct.conversation_id IN (:...ids)', { workspaceId, ids })
        .orderBy('t.name', 'ASC')
        .getMany(),
    ]);
    const contactById = new Map(contacts.map((c) => [c.id, c]));
    const channelById = new Map(channels.map((c) => [c.id, c]));
    const userById = new Map(users.map((u) => [u.userId, u]));
    return conversations.map((conversation) => {
      const contact = contactById.get(conversation.contactId)!;
      const channel = channelById.get(conversation.channelId)!;
      const assignee = conversation.assigneeUserId
        ? userById.get(conversation.assigneeUserId)
        : conversation.assignedAiAgentId
          ? userById.get(conversation.assignedAiAgentId)
          : undefined;
      return {
        id: conversation.id,
        sentiment: conversation.sentiment,
        status: conversation.status,
        lastActivityAt: TimestampFormat.utc(conversation.lastActivityAt),
        contactId: contact.id,
        contactName: contact.name,
        contactType: contact.contactType,
        phoneNumber: contact.phoneNumber,
        channelId: channel.id,
        assigneeId: conversation.assigneeUserId,
        assignedAiAgentId: conversation.assignedAiAgentId,
        isAiAssignee: conversation.assignedAiAgentId !== null,
        assigneeName: assignee?.name ?? null,
        channel: { id: channel.id, name: channel.name, type: channel.type, icon: channel.icon, phoneNumber: channel.phoneNumber },
        lastEventSourceType: conversation.lastEventSourceType,
        lastEventDirection: conversation.lastEventDirection,
        lastEventStatus: conversation.lastEventStatus,
        lastEventPreviewBody: conversation.lastEventPreviewBody,
        lastEventOccurredAt: formatTimestamp(conversation.lastEventOccurredAt, TimestampFormat.utc),
        lastEventsCount: conversation.lastEventsCount,
        tags: tagLinks.filter((link) => link.conversationId === conversation.id).map((link) => TagDto.from(link.tag!)),
        unreadCount: 0,
      };
    });
  }
}
