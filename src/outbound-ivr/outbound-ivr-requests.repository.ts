import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, IsNull, LessThan, type Repository } from 'typeorm';
import { pageWithTotal } from '../common/paging/page-with-total.js';
import type { PagedResult } from '../common/paging/paged-result.js';
import { MissingWorkspaceError, WorkspaceScopedRepository } from '../database/workspace-scoped.repository.js';
import type { IvrScript } from './dialog/ivr-script.js';
import { OutboundIvrStatus } from './ivr-enums.js';
import { OutboundIvrRequestEntity } from './outbound-ivr-request.entity.js';
import { OUTBOX_COLUMNS, outboxRows, type OutboxEntry, type OutboxRow } from '../queue/outbox.service.js';
import { storeResponseCte, type PendingResponse } from '../common/idempotency/stored-response.js';

const UNFINISHED = [OutboundIvrStatus.Pending, OutboundIvrStatus.Initiated, OutboundIvrStatus.Ringing, OutboundIvrStatus.InProgress];

/** Outbound IVR call records of a workspace. */
@Injectable()
export class OutboundIvrRequestsRepository extends WorkspaceScopedRepository<OutboundIvrRequestEntity> {
  constructor(@InjectRepository(OutboundIvrRequestEntity) repository: Repository<OutboundIvrRequestEntity>) {
    super(repository);
  }

  /**
   * Inserts a new request with its outbox job, in one statement (no transaction to open and
   * commit), unless one with its externalId exists: the insert yields to the unique (workspace,
   * externalId) index, so racing requests agree, and the job is written only with the request.
   * Returns the job's row for `Outbox.pushCommitted`, or undefined when the externalId is taken.
   * With `response` (an Idempotency-Key's), the statement stores it too when it inserts the request.
   */
  async insertIgnoringWithJob(
    workspaceId: string,
    record: OutboundIvrRequestEntity,
    job: OutboxEntry,
    response?: PendingResponse,
  ): Promise<OutboxRow | undefined> {
    this.scope(workspaceId);
    if (record.workspaceId !== workspaceId || job.workspaceId !== workspaceId)
      throw new MissingWorkspaceError('OutboundIvrRequestEntity or job of another workspace');
    const { sql, params } = this.insertOf(record);
    const insert = `${sql} ON CONFLICT DO NOTHING RETURNING "id"`;
    const outbox = outboxRows([job], params.length + 1);
    // The response's parameters follow the outbox row's: the workspace, then the response's own.
    const next = params.length + outbox.params.length + 1;
    const stored = storeResponseCte(response, { workspaceId: `$${next}`, from: 'request', firstParam: next + 1 });
    const rows = await this.manager.query<Array<{ id: string; idempotent_response_stored?: boolean }>>(
      `WITH request AS (${insert}),
            job AS (INSERT INTO outbox_messages (${OUTBOX_COLUMNS}) SELECT ${outbox.placeholders[0]} FROM request)${stored ? `, ${stored.cte}` : ''}
       SELECT id${stored ? `, ${stored.storedColumn}` : ''} FROM request`,
      [...params, ...outbox.params, ...(stored ? [workspaceId, ...stored.params] : [])],
    );
    stored?.settle(rows[0]);
    return rows.length > 0 ? outbox.rows[0] : undefined;
  }

  /** The request that holds `externalId`, or null (one indexed read: `ux_outbound_ivr_external_id`). */
  async findByExternalId(workspaceId: string, externalId: string): Promise<OutboundIvrRequestEntity | null> {
    const [found] = await this.selectEntities(workspaceId, 'AND external_id = $2', [externalId]);
    return found ?? null;
  }

  /** The request that holds `externalId` (which is known to exist). */
  findByExternalIdOrFail(workspaceId: string, externalId: string): Promise<OutboundIvrRequestEntity> {
    return this.repository.findOneOrFail({ where: this.scope(workspaceId, { externalId }) });
  }

  /** Newest first, optionally of one status and externalId. */
  page(
    workspaceId: string,
    filter: { status?: OutboundIvrStatus; externalId?: string },
    skip: number,
    take: number,
  ): Promise<PagedResult<OutboundIvrRequestEntity>> {
    const qb = this.queryBuilder(workspaceId, 'r').orderBy('r.creation_time', 'DESC').addOrderBy('r.id', 'DESC');
    if (filter.status !== undefined) qb.andWhere('r.status = :status', { status: filter.status });
    if (filter.externalId) qb.andWhere('r.external_id = :externalId', { externalId: filter.externalId });
    return pageWithTotal(qb, skip, take);
  }

  /** Just the status of a call (null when there is no such call): asked often while a call plays. */
  async statusOf(workspaceId: string, id: string): Promise<OutboundIvrStatus | null> {
    const found = await this.repository.findOne({ where: this.scope(workspaceId, { id }), select: { id: true, status: true } });
    return found?.status ?? null;
  }

  /**
   * Marks a Pending call as being placed, with the script it plays, unless another run already
   * did; false when the call is no longer Pending or its placement has started.
   */
  async claimPlacement(workspaceId: string, id: string, script: IvrScript, audioFileUrl: string | null): Promise<boolean> {
    const claimed = await this.update(
      workspaceId,
      { id, status: OutboundIvrStatus.Pending, placementStartedAt: IsNull() },
      { placementStartedAt: new Date(), script, audioFileUrl },
    );
    return claimed > 0;
  }

  /** Undoes {@link claimPlacement} of a call still Pending (the provider was unavailable; the job retries). */
  async releasePlacement(workspaceId: string, id: string): Promise<void> {
    await this.update(workspaceId, { id, status: OutboundIvrStatus.Pending }, { placementStartedAt: null });
  }

  /**
   * By id alone, what authenticates a provider callback: the call's workspace and channel, whose
   * credentials then check the callback's signature (callbacks carry no token).
   */
  findUnscopedForProviderCallback(id: string): Promise<Pick<OutboundIvrRequestEntity, 'id' | 'workspaceId' | 'channelId'> | null> {
    return this.unscoped('provider callbacks are authenticated by their signature, checked against the call channel').findOne({
      where: { id },
      select: { id: true, workspaceId: true, channelId: true },
    });
  }

  /** Calls of a number to a user answered since `since` (Meta's limit on connected calls a day). */
  async countConnectedSince(workspaceId: string, channelId: string, destinationNumber: string, since: Date): Promise<number> {
    const [row] = await this.sql<{ n: number }>(
      workspaceId,
      `SELECT count(*)::int AS n FROM outbound_ivr_requests
        WHERE workspace_id = $1 AND channel_id = $2 AND destination_number = $3 AND answered_at > $4 AND direction = 2`,
      [channelId, destinationNumber, since],
    );
    return row.n;
  }

  /**
   * Whether a call of this number to this user waits for the user's permission: a request is out
   * (or about to go) for it, which another call to them joins instead of asking again.
   */
  async hasWaitingForPermission(workspaceId: string, channelId: string, destinationNumber: string): Promise<boolean> {
    const rows = await this.sql<{ one: number }>(
      workspaceId,
      `SELECT 1 AS one FROM outbound_ivr_requests
        WHERE workspace_id = $1 AND channel_id = $2 AND destination_number = $3 AND awaiting_permission LIMIT 1`,
      [channelId, destinationNumber],
    );
    return rows.length > 0;
  }

  /**
   * Unfinished calls of every workspace whose placement started before `before`, oldest first: the
   * sweeper (a system job) settles each under its own workspace.
   */
  findUnscopedStale(
    before: Date,
    take: number,
  ): Promise<Array<Pick<OutboundIvrRequestEntity, 'id' | 'workspaceId' | 'channelId' | 'callId' | 'direction'>>> {
    return this.unscoped('the stale-call sweeper is a system job over all workspaces').find({
      where: { status: In(UNFINISHED), placementStartedAt: LessThan(before) },
      select: { id: true, workspaceId: true, channelId: true, callId: true, direction: true },
      order: { placementStartedAt: 'ASC' },
      take,
    });
  }

  /**
   * Retention, across workspaces by design (a system job): takes at most `limit` recordings stored
   * before `cutoff` off their calls (which then say why they have none) and returns the files to delete.
   */
  async releaseRecordingsUnscopedBefore(cutoff: Date, limit: number): Promise<Array<{ workspaceId: string; mediaId: string }>> {
    // An UPDATE's RETURNING comes back from the driver as [rows, count].
    const [rows] = await this.manager.query<[Array<{ workspace_id: string; media_id: string }>, number]>(
      `WITH due AS (
         SELECT id, workspace_id, recording_media_id FROM outbound_ivr_requests
          WHERE recording_media_id IS NOT NULL AND recorded_at < $1
          ORDER BY recorded_at LIMIT $2 FOR UPDATE SKIP LOCKED)
       UPDATE outbound_ivr_requests o
          SET recording_media_id = NULL, recording_url = NULL, recording_error = $3
         FROM due WHERE o.id = due.id
       RETURNING due.workspace_id, due.recording_media_id AS media_id`,
      [cutoff, limit, 'The recording was deleted when its retention (RECORDING_RETENTION) ended.'],
    );
    return rows.map((row) => ({ workspaceId: row.workspace_id, mediaId: row.media_id }));
  }
}
