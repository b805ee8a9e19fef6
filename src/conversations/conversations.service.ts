import type { ReferralInfo } from './message-details.js';
import { Injectable } from '@nestjs/common';
import type { Principal } from '../auth/principal.js';
import { ChannelsService } from '../channels/channels.service.js';
import type { PagedResult } from '../common/paging/paged-result.js';
import { ContactIdentity } from '../contacts/contact-identity.service.js';
import { pgError } from '../database/pg-errors.js';
import { WebhookEventType } from '../webhooks/webhook-kind.js';
import { TagsService } from '../tags/tags.service.js';
import { WebhookPublisher } from '../webhooks/webhook-publisher.js';
import { ConversationViews } from './conversation-views.js';
import type { WorkspaceUser } from '../workspaces/workspace-user.entity.js';
import { WorkspacesService } from '../workspaces/workspaces.service.js';
import type { ConversationEvent } from './conversation-event.entity.js';
import { ConversationEventsRepository } from './conversation-events.repository.js';
import { ConversationTagsRepository } from './conversation-tags.repository.js';
import { type Conversation, ConversationStatus, EventDirection, EventSourceType } from './conversation.entity.js';
import { ConversationsRepository } from './conversations.repository.js';
import { AiAgentNotFound, AnotherConversationOpen, BothAssignees, ConversationNotFound, UserNotFound } from './conversations.errors.js';
import type { AssignConversationDto, CreateConversationDto, ListConversationsQueryDto, TimelineQueryDto } from './dto/conversation.dto.js';
import { TimelineService, type ConversationRef } from './timeline.service.js';
import { inTransaction } from '../database/transactions.js';

type ConversationEventType =
  | WebhookEventType.ConversationCreated
  | WebhookEventType.ConversationAssigned
  | WebhookEventType.ConversationStatusChanged
  | WebhookEventType.ConversationTagsChanged;

/** Who a conversation is to be assigned to: the user or AI agent asked for, as found in the workspace (null when not). */
interface Assignees {
  userId: string | null;
  aiAgentId: string | null;
  user: WorkspaceUser | null;
  agent: WorkspaceUser | null;
}

/** Conversations of a workspace: one open conversation per contact and channel, its assignment, tags and timeline. */
@Injectable()
export class ConversationsService {
  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly events: ConversationEventsRepository,
    private readonly conversationTags: ConversationTagsRepository,
    private readonly channels: ChannelsService,
    private readonly identities: ContactIdentity,
    private readonly tags: TagsService,
    private readonly workspaces: WorkspacesService,
    private readonly timeline: TimelineService,
    private readonly views: ConversationViews,
    private readonly webhooks: WebhookPublisher,
  ) {}

  async get(workspaceId: string, id: string): Promise<Conversation> {
    return this.getWith(this.conversations, workspaceId, id);
  }

  /** The open conversation of a contact on a channel, opened when there is none (safe under concurrency), in the caller's transaction. */
  async findOrOpen(workspaceId: string, channelId: string, contactId: string): Promise<Conversation> {
    const conversations = this.conversations;
    const open = await conversations.findOpen(workspaceId, channelId, contactId);
    if (open) return open;
    const opened = await conversations.open(workspaceId, channelId, contactId);
    if (opened) await this.announce(workspaceId, opened, WebhookEventType.ConversationCreated, channelId);
    return (await conversations.findOpen(workspaceId, channelId, contactId))!;
  }

  /** {@link findOrOpen} for writing to the timeline, which needs only the ids: no read-back of a new conversation. */
  async findOrOpenRef(workspaceId: string, channelId: string, contactId: string): Promise<ConversationRef> {
    const conversations = this.conversations;
    const found = await conversations.findOpenId(workspaceId, channelId, contactId);
    if (found) return { id: found, workspaceId, channelId, contactId };
    const opened = await conversations.open(workspaceId, channelId, contactId);
    if (opened) await this.announce(workspaceId, opened, WebhookEventType.ConversationCreated, channelId);
    const id = opened ?? (await conversations.findOpenId(workspaceId, channelId, contactId))!;
    return { id, workspaceId, channelId, contactId };
  }

  /**
   * {@link findOrOpenRef} for many contacts on a channel, set-based: one read, one insert of the
   * missing conversations (each announced), and one read of those a concurrent request opened first.
   */
  async findOrOpenRefs(workspaceId: string, channelId: string, contactIds: readonly string[]): Promise<Map<string, ConversationRef>> {
    const conversations = this.conversations;
    const found = await conversations.findOpenIds(workspaceId, channelId, contactIds);
    const missing = [...new Set(contactIds)].filter((contactId) => !found.has(contactId));
    if (missing.length > 0) {
      const opened = await conversations.openMany(workspaceId, channelId, missing);
      // Whether anyone takes the event is asked once for the channel, not once per conversation.
      if (opened.size > 0 && (await this.webhooks.wants(workspaceId, WebhookEventType.ConversationCreated, channelId)))
        for (const id of opened.values()) await this.announce(workspaceId, id, WebhookEventType.ConversationCreated);
      const raced = missing.filter((contactId) => !opened.has(contactId));
      const openedMeanwhile = await conversations.findOpenIds(workspaceId, channelId, raced);
      for (const [contactId, id] of [...opened, ...openedMeanwhile]) found.set(contactId, id);
    }
    return new Map([...found].map(([contactId, id]) => [contactId, { id, workspaceId, channelId, contactId }]));
  }

  /** Keeps the first click-to-WhatsApp referral of each conversation (ConversationDto.referral, a List Conversations filter). */
  async keepFirstReferrals(
    workspaceId: string,
    referrals: ReadonlyArray<{ conversationId: string; referral: ReferralInfo }>,
  ): Promise<void> {
    await this.conversations.keepFirstReferrals(workspaceId, referrals);
  }

  /**
   * Hands a contact's conversations and their timeline to another contact, in the caller's
   * transaction (a merge of two contacts). Returns what moved.
   */
  async moveToContact(
    workspaceId: string,
    fromContactId: string,
    toContactId: string,
  ): Promise<{ conversationIds: string[]; events: number }> {
    const conversationIds = await this.conversations.moveToContact(workspaceId, fromContactId, toContactId);
    const events = (await this.events.moveToContact(workspaceId, fromContactId, toContactId)).length;
    return { conversationIds, events };
  }

  async create(principal: Principal, input: CreateConversationDto): Promise<Conversation> {
    if (input.assignToUserId && input.assignToAiAgentId) throw BothAssignees();
    await this.channels.get(principal.workspaceId, input.channelId);
    const assign = input.assignToUserId || input.assignToAiAgentId;
    const assignees = assign
      ? await this.assignees(principal.workspaceId, input.assignToUserId ?? null, input.assignToAiAgentId ?? null)
      : null;
    return inTransaction(async () => {
      const contact = await this.identities.findOrCreateByPhone(principal, input.phoneNumber, input.contactName);
      const conversation = await this.findOrOpen(principal.workspaceId, input.channelId, contact.id);
      return assignees ? this.applyAssignment(principal, conversation, assignees) : conversation;
    });
  }

  async assign(principal: Principal, id: string, input: AssignConversationDto): Promise<Conversation> {
    if (input.assignedUserId && input.assignedAiAgentId) throw BothAssignees();
    const assignees = await this.assignees(principal.workspaceId, input.assignedUserId ?? null, input.assignedAiAgentId ?? null);
    return inTransaction(async () => {
      const conversation = await this.getWith(this.conversations, principal.workspaceId, id, { lock: true });
      return this.applyAssignment(principal, conversation, assignees);
    });
  }

  async setStatus(workspaceId: string, id: string, status: ConversationStatus): Promise<Conversation> {
    try {
      await inTransaction(async () => {
        const conversations = this.conversations;
        const conversation = await this.getWith(conversations, workspaceId, id, { lock: true });
        if (conversation.status === status) return;
        // Reopening while another conversation of the contact is open on the channel would break the one-open rule.
        await conversations.update(workspaceId, { id }, { status });
        await this.announce(workspaceId, id, WebhookEventType.ConversationStatusChanged);
      });
    } catch (err) {
      if (pgError.is(err, 'unique')) throw AnotherConversationOpen();
      throw err;
    }
    return this.get(workspaceId, id);
  }

  async list(workspaceId: string, channelId: string, query: ListConversationsQueryDto): Promise<PagedResult<Conversation>> {
    await this.channels.get(workspaceId, channelId);
    return this.conversations.page(workspaceId, channelId, query);
  }

  async timelinePage(workspaceId: string, id: string, query: TimelineQueryDto): Promise<PagedResult<ConversationEvent>> {
    await this.get(workspaceId, id);
    return this.events.timelinePage(workspaceId, id, query);
  }

  /** Tag a conversation: its tags become exactly `tagIds`. */
  async replaceTags(workspaceId: string, id: string, tagIds: string[]): Promise<Conversation> {
    const tags = await this.tags.getMany(workspaceId, tagIds);
    return inTransaction(async () => {
      const conversation = await this.getWith(this.conversations, workspaceId, id, { lock: true });
      const conversationTags = this.conversationTags;
      await conversationTags.delete(workspaceId, { conversationId: id });
      await conversationTags.add(
        workspaceId,
        id,
        tags.map((tag) => tag.id),
      );
      await this.announce(workspaceId, id, WebhookEventType.ConversationTagsChanged);
      return conversation;
    });
  }

  /** Adds one tag; idempotent, and concurrent adds of different tags all survive (no read-modify-write). */
  async addTag(workspaceId: string, id: string, tagId: string): Promise<Conversation> {
    const [conversation] = await Promise.all([this.get(workspaceId, id), this.tags.get(workspaceId, tagId)]);
    await inTransaction(async () => {
      await this.conversationTags.add(workspaceId, id, [tagId]);
      await this.announce(workspaceId, id, WebhookEventType.ConversationTagsChanged);
    });
    return conversation;
  }

  async removeTag(workspaceId: string, id: string, tagId: string): Promise<Conversation> {
    const [conversation] = await Promise.all([this.get(workspaceId, id), this.tags.get(workspaceId, tagId)]);
    await inTransaction(async () => {
      const removed = await this.conversationTags.delete(workspaceId, { conversationId: id, tagId });
      if (removed > 0) await this.announce(workspaceId, id, WebhookEventType.ConversationTagsChanged);
    });
    return conversation;
  }

  /**
   * Writes a `conversation.*` event with the conversation as it is now in the caller's transaction.
   * A caller that knows the conversation's channel passes it: then the conversation is read only when
   * an endpoint takes the event (a conversation opened for a call or a message usually has none).
   */
  private async announce(workspaceId: string, id: string, type: ConversationEventType, channelId?: string): Promise<void> {
    if (channelId !== undefined && !(await this.webhooks.wants(workspaceId, type, channelId))) return;
    const conversation = await this.conversations.findById(workspaceId, id);
    if (!conversation || !(await this.webhooks.wants(workspaceId, type, conversation.channelId))) return;
    const dto = await this.views.one(conversation);
    await this.webhooks.emit(workspaceId, type, dto, { channelId: conversation.channelId, orderingKey: conversation.id });
  }

  private async getWith(
    conversations: ConversationsRepository,
    workspaceId: string,
    id: string,
    options: { lock?: boolean } = {},
  ): Promise<Conversation> {
    const conversation = await conversations.findById(workspaceId, id, options);
    if (!conversation) throw ConversationNotFound(id);
    return conversation;
  }

  /** Looks up the user or AI agent to assign (read before the transaction; a missing one is refused in it, after the conversation's own check). */
  private async assignees(workspaceId: string, userId: string | null, aiAgentId: string | null): Promise<Assignees> {
    const [user, agent] = await Promise.all([
      userId ? this.workspaces.findUser(workspaceId, userId, false) : null,
      aiAgentId ? this.workspaces.findUser(workspaceId, aiAgentId, true) : null,
    ]);
    return { userId, aiAgentId, user, agent };
  }

  private async applyAssignment(principal: Principal, conversation: Conversation, to: Assignees): Promise<Conversation> {
    const { userId, aiAgentId, user, agent } = to;
    if (userId && !user) throw UserNotFound(userId);
    if (aiAgentId && !agent) throw AiAgentNotFound(aiAgentId);
    const conversations = this.conversations;
    await conversations.update(principal.workspaceId, { id: conversation.id }, { assigneeUserId: userId, assignedAiAgentId: aiAgentId });
    await this.timeline.record(conversation, {
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
    await this.announce(principal.workspaceId, conversation.id, WebhookEventType.ConversationAssigned);
    return this.getWith(conversations, principal.workspaceId, conversation.id);
  }
}
