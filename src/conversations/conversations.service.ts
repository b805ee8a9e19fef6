import { Injectable } from '@nestjs/common';
import { Brackets, DataSource, EntityManager, Repository } from 'typeorm';
import type { Principal } from '../auth/principal.js';
import { ChannelsService } from '../channels/channels.service.js';
import { newId } from '../common/id.js';
import type { PagedResult } from '../common/paging/paged-result.js';
import { pageWithTotal } from '../common/paging/page-with-total.js';
import { parseSorting } from '../common/paging/sorting.js';
import { ContactsService } from '../contacts/contacts.service.js';
import { TagsService } from '../tags/tags.service.js';
import { WorkspaceUser } from '../workspaces/workspace-user.entity.js';
import { ConversationEvent } from './conversation-event.entity.js';
import { ConversationTag } from './conversation-tag.entity.js';
import { Conversation, ConversationStatus, EventDirection, EventSourceType } from './conversation.entity.js';
import { AiAgentNotFound, AnotherConversationOpen, BothAssignees, ConversationNotFound, UserNotFound } from './conversations.errors.js';
import type { AssignConversationDto, CreateConversationDto, ListConversationsQueryDto, TimelineQueryDto } from './dto/conversation.dto.js';
import { TimelineService, type ConversationRef } from './timeline.service.js';
import { parseIsoDateTime } from '../common/time/iso-date-time.js';

const SORTABLE = { lastactivityat: 'v.last_activity_at', creationtime: 'v.creation_time' };
const TIMELINE_SORTABLE = { creationtime: 'e.creation_time' };

/** Conversations of a workspace: one open conversation per contact and channel, its assignment, tags and timeline. */
@Injectable()
export class ConversationsService {
  private readonly conversations: Repository<Conversation>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly channels: ChannelsService,
    private readonly contacts: ContactsService,
    private readonly tags: TagsService,
    private readonly timeline: TimelineService,
  ) {
    this.conversations = dataSource.getRepository(Conversation);
  }

  async get(workspaceId: string, id: string, manager: EntityManager = this.dataSource.manager, lock = false): Promise<Conversation> {
    const conversation = await manager.findOne(Conversation, {
      where: { id, workspaceId },
      ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    if (!conversation) throw ConversationNotFound(id);
    return conversation;
  }

  /** The open conversation of a contact on a channel, opened when there is none (safe under concurrency). */
  async findOrOpen(manager: EntityManager, workspaceId: string, channelId: string, contactId: string): Promise<Conversation> {
    const where = { workspaceId, channelId, contactId, status: ConversationStatus.Open };
    const open = await manager.findOne(Conversation, { where });
    if (open) return open;
    await this.open(manager, workspaceId, channelId, contactId);
    return manager.findOneOrFail(Conversation, { where });
  }

  /** {@link findOrOpen} for writing to the timeline, which needs only the ids: no read-back of a new conversation. */
  async findOrOpenRef(manager: EntityManager, workspaceId: string, channelId: string, contactId: string): Promise<ConversationRef> {
    const where = { workspaceId, channelId, contactId, status: ConversationStatus.Open };
    const id =
      (await manager.findOne(Conversation, { where, select: { id: true } }))?.id ??
      (await this.open(manager, workspaceId, channelId, contactId)) ??
      (await manager.findOneOrFail(Conversation, { where, select: { id: true } })).id;
    return { id, workspaceId, channelId, contactId };
  }

  /** Opens a conversation; returns its id, or undefined when a concurrent request opened one first. */
  private async open(manager: EntityManager, workspaceId: string, channelId: string, contactId: string): Promise<string | undefined> {
    const id = newId();
    const inserted = await manager
      .createQueryBuilder()
      .insert()
      .into(Conversation)
      .values({ id, workspaceId, channelId, contactId, status: ConversationStatus.Open, lastActivityAt: new Date(), lastEventsCount: 0 })
      .orIgnore()
      .returning(['id'])
      .execute();
    return (inserted.raw as unknown[]).length > 0 ? id : undefined;
  }

  async create(principal: Principal, input: CreateConversationDto): Promise<Conversation> {
    if (input.assignToUserId && input.assignToAiAgentId) throw BothAssignees();
    await this.channels.get(principal.workspaceId, input.channelId);
    return this.dataSource.transaction(async (manager) => {
      const contact = await this.contacts.findOrCreateByPhone(manager, principal, input.phoneNumber, input.contactName);
      const conversation = await this.findOrOpen(manager, principal.workspaceId, input.channelId, contact.id);
      if (input.assignToUserId || input.assignToAiAgentId) {
        return this.applyAssignment(manager, principal, conversation, input.assignToUserId ?? null, input.assignToAiAgentId ?? null);
      }
      return conversation;
    });
  }

  async assign(principal: Principal, id: string, input: AssignConversationDto): Promise<Conversation> {
    if (input.assignedUserId && input.assignedAiAgentId) throw BothAssignees();
    return this.dataSource.transaction(async (manager) => {
      const conversation = await this.get(principal.workspaceId, id, manager, true);
      return this.applyAssignment(manager, principal, conversation, input.assignedUserId ?? null, input.assignedAiAgentId ?? null);
    });
  }

  async setStatus(workspaceId: string, id: string, status: ConversationStatus): Promise<Conversation> {
    const conversation = await this.get(workspaceId, id);
    if (conversation.status !== status) {
      // Reopening while another conversation of the contact is open on the channel would break the one-open rule.
      await this.conversations.update({ id, workspaceId }, { status }).catch((err: { driverError?: { code?: string } }) => {
        if (err.driverError?.code === '23505') throw AnotherConversationOpen();
        throw err;
      });
    }
    return this.get(workspaceId, id);
  }

  async list(workspaceId: string, channelId: string, query: ListConversationsQueryDto): Promise<PagedResult<Conversation>> {
    await this.channels.get(workspaceId, channelId);
    const qb = this.conversations
      .createQueryBuilder('v')
      .where('v.workspace_id = :workspaceId AND v.channel_id = :channelId', { workspaceId, channelId });
    if (query.status) qb.andWhere('v.status = :status', { status: query.status });
    if (query.getUnAssigned) qb.andWhere('v.assignee_user_id IS NULL AND v.assigned_ai_agent_id IS NULL');
    if (query.assigneeUserIds?.length) {
      qb.andWhere(
        new Brackets((w) => w.where('v.assignee_user_id IN (:...assignees)').orWhere('v.assigned_ai_agent_id IN (:...assignees)')),
        {
          assignees: query.assigneeUserIds,
        },
      );
    }
    if (query.contactIds?.length) qb.andWhere('v.contact_id IN (:...contactIds)', { contactIds: query.contactIds });
    if (query.tagIds?.length) {
      qb.andWhere(
        'EXISTS (SELECT 1 FROM conversation_tags ct WHERE ct.workspace_id = v.workspace_id AND ct.conversation_id = v.id AND ct.tag_id IN (:...tagIds))',
        {
          tagIds: query.tagIds,
        },
      );
    }
    if (query.name?.trim() || query.phoneNumber?.replace(/\D/g, '')) {
      qb.innerJoin('contacts', 'c', 'c.id = v.contact_id AND c.workspace_id = v.workspace_id');
      if (query.name?.trim()) qb.andWhere('c.name ILIKE :name', { name: `%${query.name.trim().replace(/[\\%_]/g, '\\$&')}%` });
      const digits = query.phoneNumber?.replace(/\D/g, '');
      if (digits) qb.andWhere('c.phone_number LIKE :phone', { phone: `%${digits}%` });
    }
    if (query.fromDate) qb.andWhere('v.last_activity_at >= :fromDate', { fromDate: parseIsoDateTime(query.fromDate) });
    if (query.toDate) qb.andWhere('v.last_activity_at <= :toDate', { toDate: parseIsoDateTime(query.toDate) });
    if (query.isLost !== undefined) {
      qb.andWhere(query.isLost ? 'v.last_event_direction = :inbound' : '(v.last_event_direction IS DISTINCT FROM :inbound)', {
        inbound: EventDirection.Inbound,
      });
    }
    const sort = parseSorting(query.sorting, SORTABLE, { column: 'v.last_activity_at', direction: 'DESC' });
    return pageWithTotal(qb.orderBy(sort.column, sort.direction).addOrderBy('v.id', sort.direction), query.skipCount, query.maxResultCount);
  }

  async timelinePage(workspaceId: string, id: string, query: TimelineQueryDto): Promise<PagedResult<ConversationEvent>> {
    await this.get(workspaceId, id);
    const sort = parseSorting(query.sorting, TIMELINE_SORTABLE, { column: 'e.creation_time', direction: 'DESC' });
    const [items, totalCount] = await this.dataSource
      .getRepository(ConversationEvent)
      .createQueryBuilder('e')
      .where('e.workspace_id = :workspaceId AND e.conversation_id = :id', { workspaceId, id })
      .orderBy(sort.column, sort.direction)
      .addOrderBy('e.id', sort.direction)
      .skip(query.skipCount)
      .take(query.maxResultCount)
      .getManyAndCount();
    return { totalCount, items };
  }

  /** Tag a conversation: its tags become exactly `tagIds`. */
  async replaceTags(workspaceId: string, id: string, tagIds: string[]): Promise<Conversation> {
    const tags = await this.tags.getMany(workspaceId, tagIds);
    return this.dataSource.transaction(async (manager) => {
      const conversation = await this.get(workspaceId, id, manager, true);
      await manager.delete(ConversationTag, { workspaceId, conversationId: id });
      if (tags.length)
        await manager.insert(
          ConversationTag,
          tags.map((tag) => ({ workspaceId, conversationId: id, tagId: tag.id })),
        );
      return conversation;
    });
  }

  /** Adds one tag; idempotent, and concurrent adds of different tags all survive (no read-modify-write). */
  async addTag(workspaceId: string, id: string, tagId: string): Promise<Conversation> {
    const [conversation] = await Promise.all([this.get(workspaceId, id), this.tags.get(workspaceId, tagId)]);
    await this.dataSource
      .createQueryBuilder()
      .insert()
      .into(ConversationTag)
      .values({ workspaceId, conversationId: id, tagId })
      .orIgnore()
      .execute();
    return conversation;
  }

  async removeTag(workspaceId: string, id: string, tagId: string): Promise<Conversation> {
    const [conversation] = await Promise.all([this.get(workspaceId, id), this.tags.get(workspaceId, tagId)]);
    await this.dataSource.getRepository(ConversationTag).delete({ workspaceId, conversationId: id, tagId });
    return conversation;
  }

  private async applyAssignment(
    manager: EntityManager,
    principal: Principal,
    conversation: Conversation,
    userId: string | null,
    aiAgentId: string | null,
  ): Promise<Conversation> {
    const users = manager.getRepository(WorkspaceUser);
    const user = userId ? await users.findOne({ where: { workspaceId: principal.workspaceId, userId, isAiAgent: false } }) : null;
    if (userId && !user) throw UserNotFound(userId);
    const agent = aiAgentId
      ? await users.findOne({ where: { workspaceId: principal.workspaceId, userId: aiAgentId, isAiAgent: true } })
      : null;
    if (aiAgentId && !agent) throw AiAgentNotFound(aiAgentId);
    await manager.update(
      Conversation,
      { id: conversation.id, workspaceId: principal.workspaceId },
      { assigneeUserId: userId, assignedAiAgentId: aiAgentId },
    );
    await this.timeline.record(manager, conversation, {
      sourceType: EventSourceType.Assignation,
      direction: EventDirection.Internal,
      body: user ? `Assigned to ${user.name}` : agent ? `Assigned to ${agent.name}` : 'Unassigned',
      assignation: {
        assignedUserId: userId,
        assignedUserName: user?.name ?? null,
        assignedAiAgentId: aiAgentId,
        assignedAiAgentName: agent?.name ?? null,
        // The caller is a service account, not a workspace user: no user id, its name for display.
        assignedByUserId: null,
        assignedByUserName: principal.name ?? null,
      },
    });
    return manager.findOneByOrFail(Conversation, { id: conversation.id });
  }
}
