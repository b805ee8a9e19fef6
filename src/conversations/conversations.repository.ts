import type { ReferralInfo } from './message-details.js';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Brackets, type Repository } from 'typeorm';
import { newId } from '../common/id.js';
import type { PagedResult } from '../common/paging/paged-result.js';
import { pageWithTotal } from '../common/paging/page-with-total.js';
import { parseSorting } from '../common/paging/sorting.js';
import { parseIsoDateTime } from '../common/time/iso-date-time.js';
import { WorkspaceScopedRepository } from '../database/workspace-scoped.repository.js';
import { insertIgnoring, likePattern } from '../database/sql-helpers.js';
import { Conversation, ConversationStatus, EventDirection, type EventSourceType } from './conversation.entity.js';
import type { ListConversationsQueryDto } from './dto/conversation.dto.js';

const SORTABLE = { lastactivityat: 'v.last_activity_at', creationtime: 'v.creation_time' };

/** How much of an event's body a conversation shows as its last event's preview. */
const PREVIEW_LENGTH = 200;

/** The preview of an event's body that its conversation shows. */
export function lastEventPreview(body: string | null | undefined): string | null {
  return body ? body.slice(0, PREVIEW_LENGTH) : null;
}

/**
 * What an event sets on its conversation, each value an SQL expression (a placeholder, a
 * literal, or a column of the row source the statement reads):
 * - `recorded`: a new event became the conversation's last (activity time, the last-event
 *   fields, one more event);
 * - `status-changed`: an event's status moved; the conversation shows it only while that event
 *   is still its last (`occurredAt` is the event's creation time).
 */
export type LastEventChange =
  | { change: 'recorded'; occurredAt: string; sourceType: string; direction: string; status: string; previewBody: string; count?: string }
  | { change: 'status-changed'; occurredAt: string; status: string };

/**
 * The one statement that keeps a conversation's last-event fields, for every writer of events:
 * run alone by {@link ConversationsRepository.stampLastEvent}, or embedded as a CTE in a
 * statement that writes the event too (the one-statement WhatsApp send, status moves).
 * `conversation` names the row: SQL expressions of its workspace and id, and `from`, the row
 * source (a CTE) they read, if any. The conversation is aliased `v`.
 */
export function lastEventUpdateSql(conversation: { workspaceId: string; id: string; from?: string }, set: LastEventChange): string {
  const assignments =
    set.change === 'recorded'
      ? `last_activity_at = ${set.occurredAt}, last_event_source_type = ${set.sourceType}, last_event_direction = ${set.direction}, ` +
        `last_event_status = ${set.status}, last_event_preview_body = ${set.previewBody}, last_event_occurred_at = ${set.occurredAt}, ` +
        `last_events_count = v.last_events_count + ${set.count ?? 1}`
      : `last_event_status = ${set.status}`;
  const stillLast = set.change === 'status-changed' ? ` AND v.last_event_occurred_at = ${set.occurredAt}` : '';
  return (
    `UPDATE conversations v SET ${assignments}${conversation.from ? ` FROM ${conversation.from}` : ''}` +
    ` WHERE v.workspace_id = ${conversation.workspaceId} AND v.id = ${conversation.id}${stillLast}`
  );
}

/** What a new last event sets on its conversation (see {@link ConversationsRepository.stampLastEvent}). */
export interface LastEvent {
  creationTime: Date;
  sourceType: EventSourceType;
  direction: EventDirection;
  status: string | null;
  body: string | null;
}

@Injectable()
export class ConversationsRepository extends WorkspaceScopedRepository<Conversation> {
  constructor(@InjectRepository(Conversation) repository: Repository<Conversation>) {
    super(repository);
  }

  /** The open conversation of a contact on a channel. */
  findOpen(workspaceId: string, channelId: string, contactId: string): Promise<Conversation | null> {
    return this.findOne(workspaceId, { channelId, contactId, status: ConversationStatus.Open });
  }

  /** {@link findOpen}, its id only. */
  async findOpenId(workspaceId: string, channelId: string, contactId: string): Promise<string | undefined> {
    const where = this.scope(workspaceId, { channelId, contactId, status: ConversationStatus.Open });
    return (await this.repository.findOne({ where, select: { id: true } }))?.id;
  }

  /** Opens a conversation; returns its id, or undefined when an open one exists (a concurrent request opened it first). */
  async open(workspaceId: string, channelId: string, contactId: string): Promise<string | undefined> {
    this.scope(workspaceId);
    const [id] = await insertIgnoring(this.manager, Conversation, [
      { id: newId(), workspaceId, channelId, contactId, status: ConversationStatus.Open, lastActivityAt: new Date(), lastEventsCount: 0 },
    ]);
    return id;
  }

  /**
   * {@link open} for many contacts on a channel, in one statement: returns the id of each
   * conversation opened by contact id; a contact with an open one already (a concurrent request) is absent.
   */
  async openMany(workspaceId: string, channelId: string, contactIds: readonly string[]): Promise<Map<string, string>> {
    this.scope(workspaceId);
    const lastActivityAt = new Date();
    const rows = [...new Set(contactIds)].map((contactId) => ({
      id: newId(),
      workspaceId,
      channelId,
      contactId,
      status: ConversationStatus.Open,
      lastActivityAt,
      lastEventsCount: 0,
    }));
    const opened = new Set(await insertIgnoring(this.manager, Conversation, rows));
    return new Map(rows.filter((row) => opened.has(row.id)).map((row) => [row.contactId, row.id]));
  }

  /** Makes `event` the conversation's last event: {@link lastEventUpdateSql}, alone. */
  async stampLastEvent(workspaceId: string, conversationId: string, event: LastEvent): Promise<void> {
    const sql = lastEventUpdateSql(
      { workspaceId: '$1', id: '$2' },
      { change: 'recorded', occurredAt: '$3', sourceType: '$4', direction: '$5', status: '$6', previewBody: '$7' },
    );
    await this.sql(workspaceId, sql, [
      conversationId,
      event.creationTime,
      event.sourceType,
      event.direction,
      event.status,
      lastEventPreview(event.body),
    ]);
  }

  /**
   * {@link stampLastEvent} for many conversations in one statement: each takes its `last` event
   * and counts `count` more events.
   */
  async stampLastEvents(workspaceId: string, stamps: Array<{ conversationId: string; last: LastEvent; count: number }>): Promise<void> {
    if (stamps.length === 0) return;
    const stamp =
      'unnest($2::uuid[], $3::timestamptz[], $4::smallint[], $5::smallint[], $6::varchar[], $7::text[], $8::int[])' +
      ' AS s(id, at, source_type, direction, status, preview, count)';
    const sql = lastEventUpdateSql(
      { workspaceId: '$1', id: 's.id', from: stamp },
      {
        change: 'recorded',
        occurredAt: 's.at',
        sourceType: 's.source_type',
        direction: 's.direction',
        status: 's.status',
        previewBody: 's.preview',
        count: 's.count',
      },
    );
    await this.sql(workspaceId, sql, [
      stamps.map((s) => s.conversationId),
      stamps.map((s) => s.last.creationTime),
      stamps.map((s) => s.last.sourceType),
      stamps.map((s) => s.last.direction),
      stamps.map((s) => s.last.status),
      stamps.map((s) => lastEventPreview(s.last.body)),
      stamps.map((s) => s.count),
    ]);
  }

  /** Keeps each conversation's first referral: one that has one already keeps it. */
  async keepFirstReferrals(
    workspaceId: string,
    referrals: ReadonlyArray<{ conversationId: string; referral: ReferralInfo }>,
  ): Promise<void> {
    if (referrals.length === 0) return;
    await this.sql(
      workspaceId,
      `UPDATE conversations c SET referral = r.referral
         FROM (SELECT DISTINCT ON (id) id, referral FROM unnest($2::uuid[], $3::jsonb[]) WITH ORDINALITY AS r(id, referral, n) ORDER BY id, n) r
        WHERE c.workspace_id = $1 AND c.id = r.id AND c.referral IS NULL`,
      [referrals.map((r) => r.conversationId), referrals.map((r) => JSON.stringify(r.referral))],
    );
  }

  /** The open conversations of these contacts on a channel: conversation id by contact id. */
  async findOpenIds(workspaceId: string, channelId: string, contactIds: readonly string[]): Promise<Map<string, string>> {
    if (contactIds.length === 0) return new Map();
    const rows = await this.sql<{ id: string; contact_id: string }>(
      workspaceId,
      'SELECT id, contact_id FROM conversations WHERE workspace_id = $1 AND channel_id = $2 AND status = $3 AND contact_id = ANY($4::uuid[])',
      [channelId, ConversationStatus.Open, [...new Set(contactIds)]],
    );
    return new Map(rows.map((row) => [row.contact_id, row.id]));
  }

  /** A page of a channel's conversations matching the list filters, newest activity first unless `query.sorting` says otherwise. */
  page(workspaceId: string, channelId: string, query: ListConversationsQueryDto): Promise<PagedResult<Conversation>> {
    const qb = this.queryBuilder(workspaceId, 'v').andWhere('v.channel_id = :channelId', { channelId });
    if (query.status) qb.andWhere('v.status = :status', { status: query.status });
    if (query.getUnAssigned) qb.andWhere('v.assignee_user_id IS NULL AND v.assigned_ai_agent_id IS NULL');
    if (query.assigneeUserIds?.length) {
      qb.andWhere(
        new Brackets((w) => w.where('v.assignee_user_id IN (:...assignees)').orWhere('v.assigned_ai_agent_id IN (:...assignees)')),
        { assignees: query.assigneeUserIds },
      );
    }
    if (query.contactIds?.length) qb.andWhere('v.contact_id IN (:...contactIds)', { contactIds: query.contactIds });
    if (query.tagIds?.length) {
      qb.andWhere(
        'EXISTS (SELECT 1 FROM conversation_tags ct WHERE ct.workspace_id = v.workspace_id AND ct.conversation_id = v.id AND ct.tag_id IN (:...tagIds))',
        { tagIds: query.tagIds },
      );
    }
    const name = query.name?.trim();
    const digits = query.phoneNumber?.replace(/\D/g, '');
    if (name || digits) {
      // The contact's name and number filter in the same query (a page of a large channel must not list contacts first).
      qb.innerJoin('contacts', 'c', 'c.id = v.contact_id AND c.workspace_id = v.workspace_id');
      if (name) qb.andWhere('c.name ILIKE :name', { name: likePattern(name) });
      if (digits) qb.andWhere('c.phone_number LIKE :phone', { phone: `%${digits}%` });
    }
    if (query.hasReferral !== undefined) qb.andWhere(query.hasReferral ? 'v.referral IS NOT NULL' : 'v.referral IS NULL');
    if (query.referralSourceId) qb.andWhere("v.referral ->> 'sourceId' = :referralSourceId", { referralSourceId: query.referralSourceId });
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

  /**
   * Hands a contact's conversations to another contact of the workspace (a merge). Where both have
   * an open conversation on a channel, the moving one is closed first: a contact has one open
   * conversation per channel. Returns the ids of the conversations moved.
   */
  override async moveToContact(workspaceId: string, fromContactId: string, toContactId: string): Promise<string[]> {
    await this.sql(
      workspaceId,
      `UPDATE conversations l SET status = ${ConversationStatus.Closed}
        WHERE l.workspace_id = $1 AND l.contact_id = $2 AND l.status = ${ConversationStatus.Open}
          AND EXISTS (SELECT 1 FROM conversations s WHERE s.workspace_id = $1 AND s.contact_id = $3
                         AND s.channel_id = l.channel_id AND s.status = ${ConversationStatus.Open})`,
      [fromContactId, toContactId],
    );
    return super.moveToContact(workspaceId, fromContactId, toContactId);
  }
}
