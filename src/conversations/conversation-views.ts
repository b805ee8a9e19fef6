import { Injectable } from '@nestjs/common';
import { ChannelsService } from '../channels/channels.service.js';
import type { PagedResult } from '../common/paging/paged-result.js';
import { readAll } from '../database/read-all.js';
import { ContactsService } from '../contacts/contacts.service.js';
import { WorkspacesService } from '../workspaces/workspaces.service.js';
import { ConversationTagsRepository } from './conversation-tags.repository.js';
import type { Conversation } from './conversation.entity.js';
import { ConversationDto } from './dto/conversation.dto.js';

/** ConversationDto for any number of conversations in a fixed number of queries. */
@Injectable()
export class ConversationViews {
  constructor(
    private readonly contacts: ContactsService,
    private readonly channels: ChannelsService,
    private readonly workspaces: WorkspacesService,
    private readonly conversationTags: ConversationTagsRepository,
  ) {}

  async one(conversation: Conversation): Promise<ConversationDto> {
    return (await this.many([conversation]))[0];
  }

  async page(page: PagedResult<Conversation>): Promise<PagedResult<ConversationDto>> {
    return { totalCount: page.totalCount, items: await this.many(page.items) };
  }

  async many(conversations: Conversation[]): Promise<ConversationDto[]> {
    if (conversations.length === 0) return [];
    const workspaceId = conversations[0].workspaceId;
    const distinct = (ids: Array<string | null>) => [...new Set(ids.filter((id): id is string => !!id))];
    const contactIds = distinct(conversations.map((c) => c.contactId));
    const userIds = distinct(conversations.flatMap((c) => [c.assigneeUserId, c.assignedAiAgentId]));
    const [contacts, channels, users, tagLinks] = await readAll([
      () => this.contacts.findByIds(workspaceId, contactIds),
      () => this.channels.getManyIncludingDeleted(workspaceId, distinct(conversations.map((c) => c.channelId))),
      () => this.workspaces.findUsersByUserIds(workspaceId, userIds),
      () =>
        this.conversationTags.withTags(
          workspaceId,
          conversations.map((c) => c.id),
        ),
    ]);
    const contactById = new Map(contacts.map((c) => [c.id, c]));
    const channelById = new Map(channels.map((c) => [c.id, c]));
    const userById = new Map(users.map((u) => [u.userId, u]));
    return conversations.map((conversation) => {
      const assignee = conversation.assigneeUserId
        ? userById.get(conversation.assigneeUserId)
        : conversation.assignedAiAgentId
          ? userById.get(conversation.assignedAiAgentId)
          : undefined;
      return ConversationDto.from(conversation, {
        contact: contactById.get(conversation.contactId)!,
        channel: channelById.get(conversation.channelId)!,
        assigneeName: assignee?.name ?? null,
        tags: tagLinks.filter((link) => link.conversationId === conversation.id).map((link) => link.tag!),
      });
    });
  }
}
