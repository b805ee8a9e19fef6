import { isUuid } from '../common/id.js';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { QueryDeepPartialEntity, Repository } from 'typeorm';
import type { PagedResult } from '../common/paging/paged-result.js';
import type { SortedPagedRequestDto } from '../common/paging/paged-request.dto.js';
import { pageWithTotal } from '../common/paging/page-with-total.js';
import { parseSorting } from '../common/paging/sorting.js';
import { MissingWorkspaceError, WorkspaceScopedRepository } from '../database/workspace-scoped.repository.js';
import { OUTBOX_COLUMNS, outboxRows, type OutboxEntry, type OutboxRow } from '../queue/outbox.service.js';
import { storeResponseCte, type PendingResponse, type ResponseCte } from '../common/idempotency/stored-response.js';
import { ConversationEvent } from './conversation-event.entity.js';
import { ConversationStatus, EventDirection, EventSourceType } from './conversation.entity.js';
import { lastEventPreview, lastEventUpdateSql } from './conversations.repository.js';
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

/** The delivery statuses reported for an outbound WhatsApp message, as bits of `reported_statuses`. */
const STATUS_BIT: Record<string, number> = { Sent: 1, Delivered: 2, Read: 4, Failed: 8 };
const STATUS_BIT_SQL = (status: string) =>
  `(CASE ${status} ${Object.entries(STATUS_BIT)
    .map(([name, bit]) => `WHEN '${name}' THEN ${bit}`)
    .join(' ')} ELSE 0 END)::smallint`;
/** The statuses an event may be at for a report of this status to be a late one (it came after a later status). */
const LATE_AT: Record<string, string[]> = { Sent: ['Delivered', 'Read'], Delivered: ['Read'] };

const TIMELINE_SORTABLE = { creationtime: 'e.creation_time' };

/**
 * `EXISTS` an inbound WhatsApp message from the contact on the channel after `since`: whether the
 * contact opened a customer service window. Each value is an SQL expression.
 */
function inboundWhatsAppSinceSql(at: { workspaceId: string; channelId: string; contactId: string; since: string }): string {
  return (
    `EXISTS (SELECT 1 FROM conversation_events w WHERE w.workspace_id = ${at.workspaceId} AND w.channel_id = ${at.channelId}` +
    ` AND w.contact_id = ${at.contactId} AND w.source_type = ${EventSourceType.WhatsApp} AND w.direction = ${EventDirection.Inbound}` +
    ` AND w.creation_time > ${at.since})`
  );
}

/** The fields {@link ConversationEventsRepository.recordInOpenConversation} writes; the conversation and contact come from the database. */
export type OpenConversationEvent = Pick<
  ConversationEvent,
  'id' | 'sourceType' | 'direction' | 'creationTime' | 'status' | 'body' | 'attachment' | 'handlerName'
> &
  Partial<Pick<ConversationEvent, 'location'>>;

/** Which open conversation {@link ConversationEventsRepository.recordInOpenConversation} records in. */
export interface OpenConversationTarget {
  channelId: string;
  /** The contact's number, E.164 as contacts store it; or the contact itself, by id. */
  phoneNumber?: string;
  contactId?: string;
  /** When set, only if the contact sent a WhatsApp message on the channel after it (the service window is open). */
  inboundSince: Date | null;
}

/**
 * The one-statement record: when the contact exists, has an open conversation on the channel and
 * (with `inboundSince`) wrote on it since then, inserts the event, makes it the conversation's last
 * ({@link lastEventUpdateSql}) and writes the outbox row. `$1` is the workspace.
 */
const RECORD_IN_OPEN_CONVERSATION_SQL = (outboxPlaceholders: string, contactMatch: string, response: ResponseCte | undefined) => `
  WITH target AS (
    SELECT v.id AS conversation_id, v.contact_id
      FROM contacts c
      JOIN conversations v ON v.workspace_id = c.workspace_id AND v.contact_id = c.id AND v.channel_id = $3 AND v.status = ${ConversationStatus.Open}
     WHERE c.workspace_id = $1 AND ${contactMatch}
       AND ($10::timestamptz IS NULL OR ${inboundWhatsAppSinceSql({ workspaceId: '$1', channelId: '$3', contactId: 'c.id', since: '$10' })})
     LIMIT 1
  ), event AS (
    INSERT INTO conversation_events
           (id, workspace_id, conversation_id, contact_id, channel_id, source_type, direction, creation_time, status, body, attachment, handler_name,
            location)
    SELECT $4::uuid, $1::uuid, conversation_id, contact_id, $3::uuid, $11::smallint, $12::smallint, $5::timestamptz,
           $13::varchar, $6::text, $7::jsonb, $8::varchar, $14::jsonb FROM target
    RETURNING conversation_id, contact_id
  ), stamp AS (
    ${lastEventUpdateSql(
      { workspaceId: '$1', id: 'event.conversation_id', from: 'event' },
      { change: 'recorded', occurredAt: '$5', sourceType: '$11', direction: '$12', status: '$13', previewBody: '$9' },
    )}
  ), job AS (
    INSERT INTO outbox_messages (${OUTBOX_COLUMNS}) SELECT ${outboxPlaceholders} FROM event
  )${response ? `, ${response.cte}` : ''}
  SELECT contact_id${response ? `, ${response.storedColumn}` : ''} FROM event`;
const RECORD_PARAMS = 14;

/**
 * One statement: the event moves only from one of the given statuses (so concurrent updates
 * cannot move it backwards), and its conversation, when this event is still its last, shows the
 * new status ({@link lastEventUpdateSql}).
 */
const MOVE_SQL = (match: string) => `
  WITH moved AS (
    UPDATE conversation_events
       SET status = $2, source_id = COALESCE(source_id, $3), error_code = $4, failure_reason = $5,
           is_billable = COALESCE($7::boolean, is_billable), reported_statuses = reported_statuses | ${STATUS_BIT_SQL('$2::varchar')}
     WHERE workspace_id = $1 AND direction = ${EventDirection.Outbound} AND status = ANY($6::varchar[]) AND ${match}
     RETURNING id, workspace_id, conversation_id, contact_id, source_id, body, attachment, creation_time, is_billable, pricing, source
  ), stamped AS (
    ${lastEventUpdateSql(
      { workspaceId: 'moved.workspace_id', id: 'moved.conversation_id', from: 'moved' },
      { change: 'status-changed', status: '$2', occurredAt: 'moved.creation_time' },
    )}
  )
  SELECT * FROM moved`;
const MOVE_BY_ID = MOVE_SQL('id = $8');

/**
 * {@link MOVE_SQL} for many outbound events by id, in one statement, each with its own status and
 * statuses it may move from (`$2`, a JSON array; each id at most once): the send worker records a
 * batch of provider answers with it.
 */
const MOVE_MANY_BY_ID = `
  WITH input AS (
    SELECT * FROM jsonb_to_recordset($2::jsonb)
      AS i(id uuid, status varchar, provider_id varchar, error_code varchar, failure_reason varchar, is_billable boolean, from_statuses varchar[])
  ), moved AS (
    UPDATE conversation_events e
       SET status = i.status, source_id = COALESCE(e.source_id, i.provider_id), error_code = i.error_code,
           failure_reason = i.failure_reason, is_billable = COALESCE(i.is_billable, e.is_billable),
           reported_statuses = e.reported_statuses | ${STATUS_BIT_SQL('i.status')}
      FROM input i
     WHERE e.workspace_id = $1 AND e.id = i.id AND e.direction = ${EventDirection.Outbound} AND e.status = ANY(i.from_statuses)
     RETURNING e.id, e.workspace_id, e.conversation_id, e.contact_id, e.source_id, e.body, e.attachment, e.creation_time, e.is_billable,
               e.pricing, e.source, e.status
  ), stamped AS (
    ${lastEventUpdateSql(
      { workspaceId: 'moved.workspace_id', id: 'moved.conversation_id', from: 'moved' },
      { change: 'status-changed', status: 'moved.status', occurredAt: 'moved.creation_time' },
    )}
  )
  SELECT * FROM moved`;
const MOVE_BY_PROVIDER_ID = MOVE_SQL(`channel_id = $8 AND source_type = ${EventSourceType.WhatsApp} AND source_id = $9`);

/** The outbound WhatsApp messages of channel `$2` named in `$3`, a JSON array of objects each with the provider's message `id`. */
const WHATSAPP_INPUT = (columns: string) => `
  input AS (SELECT * FROM jsonb_to_recordset($3::jsonb) AS i(id text, ${columns}))`;
const WHATSAPP_MATCH = `e.workspace_id = $1 AND e.channel_id = $2 AND e.direction = ${EventDirection.Outbound}
       AND e.source_type = ${EventSourceType.WhatsApp} AND e.source_id = i.id`;

/**
 * {@link MOVE_SQL} for many messages of one channel, each named once, in one statement; and a status
 * Meta reports late (`delivered` after `read`, which came first), which moves nothing, is returned
 * too the first time (`moved` false), so that its webhook still goes out once: each event keeps the
 * statuses reported for it as bits ({@link STATUS_BIT}; null for events from before they were kept).
 */
const MOVE_MANY_BY_PROVIDER_ID = `
  WITH ${WHATSAPP_INPUT('status varchar, error_code varchar, failure_reason text, is_billable boolean, from_statuses varchar[], late_at varchar[], bit smallint')},
  target AS (
    SELECT e.id, e.status = ANY(i.from_statuses) AS moves, i.status, i.error_code, i.failure_reason, i.is_billable, i.bit
      FROM conversation_events e JOIN input i ON true
     WHERE ${WHATSAPP_MATCH}
       AND (e.status = ANY(i.from_statuses) OR (e.status = ANY(i.late_at) AND (e.reported_statuses & i.bit) = 0))
       FOR UPDATE OF e
  ), moved AS (
    UPDATE conversation_events e
       SET status = CASE WHEN t.moves THEN t.status ELSE e.status END,
           error_code = CASE WHEN t.moves THEN t.error_code ELSE e.error_code END,
           failure_reason = CASE WHEN t.moves THEN t.failure_reason ELSE e.failure_reason END,
           is_billable = CASE WHEN t.moves THEN COALESCE(t.is_billable, e.is_billable) ELSE e.is_billable END,
           reported_statuses = e.reported_statuses | t.bit
      FROM target t
     WHERE e.workspace_id = $1 AND e.id = t.id
     RETURNING e.id, e.workspace_id, e.conversation_id, e.contact_id, e.source_id, e.body, e.attachment, e.creation_time, e.is_billable,
               e.pricing, e.source, t.status, t.moves AS moved
  ), stamped AS (
    ${lastEventUpdateSql(
      { workspaceId: 'moved.workspace_id', id: 'moved.conversation_id', from: 'moved' },
      { change: 'status-changed', status: 'moved.status', occurredAt: 'moved.creation_time' },
    )} AND moved.moved
  )
  SELECT * FROM moved`;

/** {@link ConversationEventsRepository.recordPricing} for many messages of one channel, each named once, in one statement. */
const PRICE_MANY_BY_PROVIDER_ID = `
  WITH ${WHATSAPP_INPUT('pricing jsonb')},
  priced AS (
    UPDATE conversation_events e SET pricing = i.pricing, is_billable = (i.pricing->>'billable')::boolean
      FROM input i
     WHERE ${WHATSAPP_MATCH} AND e.pricing IS NULL
     RETURNING e.id, e.channel_id, e.attachment, e.pricing, e.source_id
  )
  SELECT * FROM priced`;

@Injectable()
export class ConversationEventsRepository extends WorkspaceScopedRepository<ConversationEvent> {
  constructor(@InjectRepository(ConversationEvent) repository: Repository<ConversationEvent>) {
    super(repository);
  }

  /** Inserts a new event of the workspace (one statement, no read first). */
  async insert(workspaceId: string, event: ConversationEvent): Promise<void> {
    this.scope(workspaceId);
    if (event.workspaceId !== workspaceId) throw new MissingWorkspaceError('ConversationEvent of another workspace');
    await this.repository.insert(event as never);
  }

  /** A page of a conversation's timeline, newest first unless `paging.sorting` says otherwise. */
  timelinePage(workspaceId: string, conversationId: string, paging: SortedPagedRequestDto): Promise<PagedResult<ConversationEvent>> {
    const sort = parseSorting(paging.sorting, TIMELINE_SORTABLE, { column: 'e.creation_time', direction: 'DESC' });
    const qb = this.queryBuilder(workspaceId, 'e')
      .andWhere('e.conversation_id = :conversationId', { conversationId })
      .orderBy(sort.column, sort.direction)
      .addOrderBy('e.id', sort.direction);
    return pageWithTotal(qb, paging.skipCount, paging.maxResultCount);
  }

  /** The event's status; undefined when there is no such event. */
  async statusOf(workspaceId: string, id: string): Promise<string | null | undefined> {
    const [event] = await this.sql<{ status: string | null }>(
      workspaceId,
      'SELECT status FROM conversation_events WHERE workspace_id = $1 AND id = $2',
      [id],
    );
    return event ? event.status : undefined;
  }

  /** The event standing for a provider's message (its id and body only). */
  findBySource(workspaceId: string, sourceType: EventSourceType, sourceId: string): Promise<Pick<ConversationEvent, 'id' | 'body'> | null> {
    return this.repository.findOne({ select: { id: true, body: true }, where: this.scope(workspaceId, { sourceType, sourceId }) });
  }

  /** Merges `patch` into the attachment of the events standing for one provider object (a call's recording, learned after it ended). */
  async mergeAttachmentBySource(
    workspaceId: string,
    sourceType: EventSourceType,
    sourceId: string,
    patch: Record<string, unknown>,
  ): Promise<void> {
    await this.sql(
      workspaceId,
      `UPDATE conversation_events SET attachment = coalesce(attachment, '{}'::jsonb) || $4::jsonb
        WHERE workspace_id = $1 AND source_type = $2 AND source_id = $3`,
      [sourceType, sourceId, JSON.stringify(patch)],
    );
  }

  /** Sets the AI summary (summary and transcription) of the events of a source (a call's analysis). */
  async setAiSummaryBySource(
    workspaceId: string,
    sourceType: EventSourceType,
    sourceId: string,
    aiSummary: { summary: string | null; transcription: string | null },
  ): Promise<void> {
    await this.sql(
      workspaceId,
      `UPDATE conversation_events SET ai_summary = $4::jsonb WHERE workspace_id = $1 AND source_type = $2 AND source_id = $3`,
      [sourceType, sourceId, JSON.stringify(aiSummary)],
    );
  }

  /** What a reaction or Mark As Read needs of a timeline event: whose, where, which way, and the provider's message id. */
  /** Rewrites what a message says (an edit or a deletion); jsonb columns are replaced whole. */
  async rewriteContent(workspaceId: string, id: string, patch: MessageContentPatch): Promise<void> {
    await this.update(workspaceId, { id }, patch as QueryDeepPartialEntity<ConversationEvent>);
  }

  /** A message by our event id, or by the WhatsApp provider's message id (Meta's wamid): an integrator may hold either. */
  findMessageRef(workspaceId: string, eventOrProviderId: string): Promise<MessageRef | null> {
    const where = isUuid(eventOrProviderId)
      ? { id: eventOrProviderId }
      : { sourceType: EventSourceType.WhatsApp, sourceId: eventOrProviderId };
    return this.repository.findOne({
      select: { id: true, channelId: true, contactId: true, sourceType: true, direction: true, sourceId: true, attachment: true },
      where: this.scope(workspaceId, where),
    });
  }

  /**
   * Holds a transaction-scoped lock on one provider message of a channel (bind to the transaction
   * with `withManager`): a redelivered message waits for the first delivery's transaction.
   */
  async lockSource(channelId: string, sourceId: string): Promise<void> {
    await this.manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${channelId}:${sourceId}`]);
  }

  /** {@link lockSource} for many messages of a channel in one statement, taken in one order (two batches never wait on each other in a circle). */
  async lockSources(channelId: string, sourceIds: readonly string[]): Promise<void> {
    if (sourceIds.length === 0) return;
    await this.manager.query('SELECT pg_advisory_xact_lock(hashtext(k)) FROM (SELECT k FROM unnest($1::text[]) AS k ORDER BY k) AS s', [
      [...new Set(sourceIds.map((id) => `${channelId}:${id}`))],
    ]);
  }

  /** The events standing for these provider messages (id, body and provider id), by provider id. */
  async findBySources(
    workspaceId: string,
    sourceType: EventSourceType,
    sourceIds: readonly string[],
  ): Promise<Map<string, Pick<ConversationEvent, 'id' | 'body'>>> {
    if (sourceIds.length === 0) return new Map();
    const rows = await this.sql<{ id: string; body: string | null; source_id: string }>(
      workspaceId,
      'SELECT id, body, source_id FROM conversation_events WHERE workspace_id = $1 AND source_type = $2 AND source_id = ANY($3::varchar[])',
      [sourceType, [...new Set(sourceIds)]],
    );
    return new Map(rows.map((row) => [row.source_id, { id: row.id, body: row.body }]));
  }

  /** Inserts new events of the workspace in one statement. */
  async insertMany(workspaceId: string, events: ConversationEvent[]): Promise<void> {
    if (events.length === 0) return;
    this.scope(workspaceId);
    if (events.some((event) => event.workspaceId !== workspaceId))
      throw new MissingWorkspaceError('ConversationEvent of another workspace');
    await this.repository.insert(events as never);
  }

  /** Did the contact send a WhatsApp message on the channel after `since`? */
  async hasInboundWhatsAppSince(workspaceId: string, channelId: string, contactId: string, since: Date): Promise<boolean> {
    return this.hasInboundWhatsAppFrom(workspaceId, channelId, { contactId }, since);
  }

  /** {@link hasInboundWhatsAppSince} for a contact named by id or by number (a number no contact has: false). */
  async hasInboundWhatsAppFrom(
    workspaceId: string,
    channelId: string,
    sender: { contactId: string } | { phoneNumber: string },
    since: Date,
  ): Promise<boolean> {
    const byId = 'contactId' in sender;
    const contactId = byId ? '$3' : '(SELECT c.id FROM contacts c WHERE c.workspace_id = $1 AND c.phone_number = $3)';
    const sql = `SELECT ${inboundWhatsAppSinceSql({ workspaceId: '$1', channelId: '$2', contactId, since: '$4' })} AS open`;
    const [row] = await this.sql<{ open: boolean }>(workspaceId, sql, [channelId, byId ? sender.contactId : sender.phoneNumber, since]);
    return row.open;
  }

  /**
   * Records `event` in the contact's open conversation on the channel, with its outbox job, in one
   * statement (see {@link RECORD_IN_OPEN_CONVERSATION_SQL}). Writes nothing and returns undefined
   * when there is no such conversation or the service window asked for is closed. The outbox row
   * is returned for `Outbox.pushCommitted`. With `response` (an Idempotency-Key's), the statement
   * stores it too, its `contactId` and `eventId` filled in (see `storeResponseCte`).
   */
  async recordInOpenConversation(
    workspaceId: string,
    target: OpenConversationTarget,
    event: OpenConversationEvent,
    job: OutboxEntry,
    response?: PendingResponse,
  ): Promise<{ contactId: string; job: OutboxRow } | undefined> {
    const byId = target.contactId !== undefined;
    const params: unknown[] = [
      byId ? target.contactId : target.phoneNumber,
      target.channelId,
      event.id,
      event.creationTime,
      event.body,
      event.attachment,
      event.handlerName,
      lastEventPreview(event.body),
      target.inboundSince,
      event.sourceType,
      event.direction,
      event.status,
      event.location ?? null,
    ];
    const outbox = outboxRows([job], RECORD_PARAMS + 1);
    const stored = storeResponseCte(response, {
      workspaceId: '$1',
      from: 'event',
      firstParam: RECORD_PARAMS + 1 + outbox.params.length,
      values: { contactId: 'event.contact_id', eventId: '$4::uuid' },
    });
    const contactMatch = byId ? 'c.id = $2::uuid' : 'c.phone_number = $2';
    const rows = await this.sql<{ contact_id: string; idempotent_response_stored?: boolean }>(
      workspaceId,
      RECORD_IN_OPEN_CONVERSATION_SQL(outbox.placeholders[0], contactMatch, stored),
      [...params, ...outbox.params, ...(stored?.params ?? [])],
    );
    stored?.settle(rows[0]);
    return rows[0] ? { contactId: rows[0].contact_id, job: outbox.rows[0] } : undefined;
  }

  /** Where an inbound message's file stands (`Pending`, `Stored`, `Failed`); undefined when there is no such event or file. */
  async mediaStatusOf(workspaceId: string, id: string): Promise<string | undefined> {
    const [event] = await this.sql<{ media_status: string | null }>(
      workspaceId,
      `SELECT attachment->>'mediaStatus' AS media_status FROM conversation_events WHERE workspace_id = $1 AND id = $2`,
      [id],
    );
    return event?.media_status ?? undefined;
  }

  /**
   * Settles an inbound message's file once: merges `patch` into the event's attachment only while
   * its `mediaStatus` is still Pending (so a download that ran twice settles it once). Returns the
   * event when this call settled it.
   */
  async settleMedia(
    workspaceId: string,
    eventId: string,
    patch: Record<string, unknown>,
    durationOrSize: string | null,
  ): Promise<SettledMediaEvent | undefined> {
    const [event] = await this.sql<SettledMediaEvent>(
      workspaceId,
      `UPDATE conversation_events
          SET attachment = attachment || $3::jsonb, duration_or_size = COALESCE($4, duration_or_size)
        WHERE workspace_id = $1 AND id = $2 AND attachment->>'mediaStatus' = 'Pending'
        RETURNING id, conversation_id, contact_id, channel_id, source_id, body, attachment, creation_time`,
      [eventId, patch, durationOrSize],
    );
    return event;
  }

  /** Moves an outbound event to `move.status` from one of `from` (see {@link MOVE_SQL}); the events moved (none or one). */
  moveOutboundStatus(workspaceId: string, ref: OutboundEventRef, move: StatusMove, from: readonly string[]): Promise<MovedEvent[]> {
    const params = [
      move.status,
      move.providerMessageId,
      move.errorCode,
      move.failureReason,
      from,
      move.isBillable ?? null,
      ...('eventId' in ref ? [ref.eventId] : [ref.channelId, ref.providerMessageId]),
    ];
    return this.sql<MovedEvent>(workspaceId, 'eventId' in ref ? MOVE_BY_ID : MOVE_BY_PROVIDER_ID, params);
  }

  /**
   * {@link moveOutboundStatus} for many outbound events by id, in one statement, each id at most
   * once and each with its own move: the events moved.
   */
  moveOutboundStatusesById(
    workspaceId: string,
    moves: ReadonlyArray<StatusMove & { eventId: string; from: readonly string[] }>,
  ): Promise<MovedEvent[]> {
    if (moves.length === 0) return Promise.resolve([]);
    const input = moves.map((move) => ({
      id: move.eventId,
      status: move.status,
      provider_id: move.providerMessageId,
      error_code: move.errorCode,
      failure_reason: move.failureReason,
      is_billable: move.isBillable ?? null,
      from_statuses: move.from,
    }));
    return this.sql(workspaceId, MOVE_MANY_BY_ID, [JSON.stringify(input)]);
  }

  /**
   * {@link moveOutboundStatus} for many WhatsApp messages of one channel, by provider id, in one
   * statement: each provider id at most once (a second status of one message is a second call).
   * Returns the events moved, and those for which the status came late (`moved` false, the first
   * time only; see {@link MOVE_MANY_BY_PROVIDER_ID}).
   */
  moveWhatsAppStatuses(
    workspaceId: string,
    channelId: string,
    moves: ReadonlyArray<StatusMove & { providerMessageId: string; from: readonly string[] }>,
  ): Promise<Array<MovedEvent & { status: string; moved: boolean }>> {
    if (moves.length === 0) return Promise.resolve([]);
    const input = moves.map((move) => ({
      id: move.providerMessageId,
      status: move.status,
      error_code: move.errorCode,
      failure_reason: move.failureReason,
      is_billable: move.isBillable ?? null,
      from_statuses: move.from,
      late_at: LATE_AT[move.status] ?? [],
      bit: STATUS_BIT[move.status] ?? 0,
    }));
    return this.sql(workspaceId, MOVE_MANY_BY_PROVIDER_ID, [channelId, JSON.stringify(input)]);
  }

  /** {@link recordPricing} for many WhatsApp messages of one channel, by provider id (each at most once): the events this call priced. */
  recordWhatsAppPricing(
    workspaceId: string,
    channelId: string,
    prices: ReadonlyArray<{ providerMessageId: string; pricing: MessagePricing }>,
  ): Promise<Array<PricedEvent & { source_id: string }>> {
    if (prices.length === 0) return Promise.resolve([]);
    const input = prices.map(({ providerMessageId, pricing }) => ({ id: providerMessageId, pricing }));
    return this.sql(workspaceId, PRICE_MANY_BY_PROVIDER_ID, [channelId, JSON.stringify(input)]);
  }

  /**
   * Records what Meta said an outbound message costs, once: only while the event has no pricing
   * yet (a repeated pricing on delivered or read, or a concurrent status, changes nothing). The
   * event when this call priced it.
   */
  async recordPricing(workspaceId: string, ref: OutboundEventRef, pricing: MessagePricing): Promise<PricedEvent | undefined> {
    const match = 'eventId' in ref ? 'id = $3' : `channel_id = $3 AND source_type = ${EventSourceType.WhatsApp} AND source_id = $4`;
    const [event] = await this.sql<PricedEvent>(
      workspaceId,
      // As a CTE: an UPDATE's own RETURNING comes back from the driver as [rows, count].
      `WITH priced AS (
         UPDATE conversation_events SET pricing = $2::jsonb, is_billable = $${'eventId' in ref ? 4 : 5}::boolean
          WHERE workspace_id = $1 AND direction = ${EventDirection.Outbound} AND pricing IS NULL AND ${match}
          RETURNING id, channel_id, attachment, pricing
       ) SELECT * FROM priced`,
      [pricing, ...('eventId' in ref ? [ref.eventId] : [ref.channelId, ref.providerMessageId]), pricing.billable],
    );
    return event;
  }

  /**
   * MARKETING templates to a contact (by id, or by number) recorded since `since` that reached it or
   * are on their way (not Failed, not Cancelled): what the send policy's frequency cap counts.
   */
  /**
   * Holds, until the caller's transaction ends, the right to count and add marketing sends to this
   * contact: two sends at once cannot both see room under the frequency cap.
   */
  async lockMarketingCount(workspaceId: string, contactId: string): Promise<void> {
    this.scope(workspaceId);
    await this.manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`marketing-count:${workspaceId}:${contactId}`]);
  }

  async countMarketingSince(workspaceId: string, recipient: { contactId: string } | { phoneNumber: string }, since: Date): Promise<number> {
    const byId = 'contactId' in recipient;
    const [row] = await this.sql<{ sent: number }>(
      workspaceId,
      `SELECT count(*)::int AS sent FROM conversation_events e
        WHERE e.workspace_id = $1
          AND e.contact_id = ${byId ? '$2' : '(SELECT c.id FROM contacts c WHERE c.workspace_id = $1 AND c.phone_number = $2)'}
          AND e.creation_time > $3 AND e.source_type = ${EventSourceType.WhatsApp} AND e.direction = ${EventDirection.Outbound}
          AND e.attachment->>'category' = 'MARKETING' AND e.status NOT IN ('Failed', 'Cancelled')`,
      [byId ? recipient.contactId : recipient.phoneNumber, since],
    );
    return row.sent;
  }

  /** Of these events, those still Pending (accepted, not yet handed to the provider). */
  async stillPending(workspaceId: string, ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows = await this.sql<{ id: string }>(
      workspaceId,
      `SELECT id FROM conversation_events WHERE workspace_id = $1 AND id = ANY($2::uuid[]) AND status = 'Pending'`,
      [ids],
    );
    return rows.map((row) => row.id);
  }

  /** {@link lockMarketingCount} for many contacts, in one statement (in a stable order, so that two batches cannot deadlock). */
  async lockMarketingCounts(workspaceId: string, contactIds: readonly string[]): Promise<void> {
    this.scope(workspaceId);
    const keys = [...new Set(contactIds)].sort().map((contactId) => `marketing-count:${workspaceId}:${contactId}`);
    await this.manager.query('SELECT pg_advisory_xact_lock(hashtext(k)) FROM unnest($1::text[]) WITH ORDINALITY AS t(k, n) ORDER BY n', [
      keys,
    ]);
  }

  /** {@link countMarketingSince} for many contacts by id, in one statement: the count by contact id (absent: none). */
  async countMarketingSinceMany(workspaceId: string, contactIds: readonly string[], since: Date): Promise<Map<string, number>> {
    const rows = await this.sql<{ contact_id: string; sent: number }>(
      workspaceId,
      `SELECT e.contact_id, count(*)::int AS sent FROM conversation_events e
        WHERE e.workspace_id = $1 AND e.contact_id = ANY($2::uuid[])
          AND e.creation_time > $3 AND e.source_type = ${EventSourceType.WhatsApp} AND e.direction = ${EventDirection.Outbound}
          AND e.attachment->>'category' = 'MARKETING' AND e.status NOT IN ('Failed', 'Cancelled')
        GROUP BY e.contact_id`,
      [[...new Set(contactIds)], since],
    );
    return new Map(rows.map((row) => [row.contact_id, row.sent]));
  }

  /** Of these contacts, those who sent a WhatsApp message on the channel after `since` ({@link hasInboundWhatsAppSince} for many, in one statement). */
  async withInboundWhatsAppSince(workspaceId: string, channelId: string, contactIds: readonly string[], since: Date): Promise<Set<string>> {
    const rows = await this.sql<{ contact_id: string }>(
      workspaceId,
      `SELECT c.id AS contact_id FROM unnest($3::uuid[]) AS c(id)
        WHERE ${inboundWhatsAppSinceSql({ workspaceId: '$1', channelId: '$2', contactId: 'c.id', since: '$4' })}`,
      [channelId, [...new Set(contactIds)], since],
    );
    return new Set(rows.map((row) => row.contact_id));
  }
}
