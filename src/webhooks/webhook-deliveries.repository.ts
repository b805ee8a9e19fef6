import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Not, type Repository } from 'typeorm';
import { pageWithTotal } from '../common/paging/page-with-total.js';
import type { PagedResult } from '../common/paging/paged-result.js';
import { deleteBatch } from '../database/sql-helpers.js';
import { WorkspaceScopedRepository } from '../database/workspace-scoped.repository.js';
import { WebhookDelivery } from './webhook-delivery.entity.js';
import { WebhookDeliveryStatus } from './webhook-kind.js';

/** A delivery an attempt has claimed: what the attempt sends, and its endpoint as it is now (null when it has none or it is gone). */
export interface ClaimedDelivery {
  id: string;
  workspace_id: string;
  endpoint_id: string | null;
  ordering_key: string | null;
  kind: string;
  target_url: string;
  payload: Record<string, unknown>;
  /** The attempt claimed. */
  attempt: number;
  endpoint: ClaimedEndpoint | null;
}

/** The endpoint columns an attempt reads (`to_jsonb` of its row). */
export interface ClaimedEndpoint {
  id: string;
  url: string;
  headers: Record<string, string>;
  ordered: boolean;
  rate_limit_per_second: number | null;
  disabled: boolean;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: string | null;
  failing_since: string | null;
}

/** An attempt of a delivery. */
export interface DeliveryAttempt {
  workspaceId: string;
  id: string;
  attempt: number;
}

/** An attempt a worker is about to make. */
export interface AttemptToClaim extends DeliveryAttempt {
  leaseSeconds: number;
}

/** The outcome of an attempt after which its delivery is over. */
export interface EndedAttempt {
  workspaceId: string;
  id: string;
  status: WebhookDeliveryStatus.Succeeded | WebhookDeliveryStatus.Failed;
  attempt: number;
  lastStatusCode: number | null;
  lastError: string | null;
}

/** What the delivery log is filtered by. */
export interface DeliveryFilter {
  kind?: string;
  status?: WebhookDeliveryStatus;
  endpointId?: string;
}

/**
 * An event to write: to its own target URL (`target`, the original kinds) and/or, with `envelope`,
 * to every endpoint of the workspace that takes it (or only `onlyEndpointId`, whatever its filters).
 */
export interface EventToFanOut {
  workspaceId: string;
  kind: string;
  target?: { id: string; url: string; payload: Record<string, unknown> };
  envelope?: object;
  channelId?: string | null;
  orderingKey?: string | null;
  onlyEndpointId?: string;
}

/** A delivery row the fan-out wrote. */
export interface WrittenDelivery {
  id: string;
  workspaceId: string;
  endpointId: string | null;
}

/** Webhook events of a workspace and the log of their delivery. */
@Injectable()
export class WebhookDeliveriesRepository extends WorkspaceScopedRepository<WebhookDelivery> {
  constructor(@InjectRepository(WebhookDelivery) repository: Repository<WebhookDelivery>) {
    super(repository);
  }

  /** Newest first, optionally of one kind and status. */
  page(workspaceId: string, filter: DeliveryFilter, skip: number, take: number): Promise<PagedResult<WebhookDelivery>> {
    const qb = this.queryBuilder(workspaceId, 'd').orderBy('d.creation_time', 'DESC').addOrderBy('d.id', 'DESC');
    if (filter.kind) qb.andWhere('d.kind = :kind', { kind: filter.kind });
    if (filter.status) qb.andWhere('d.status = :status', { status: filter.status });
    if (filter.endpointId) qb.andWhere('d.endpoint_id = :endpointId', { endpointId: filter.endpointId });
    return pageWithTotal(qb, skip, take);
  }

  /**
   * Retention, across workspaces by design (a system job): deletes at most `limit` deliveries made
   * before `cutoff` that have no attempt pending; the number deleted.
   */
  deleteUnscopedFinishedBefore(cutoff: Date, limit: number): Promise<number> {
    return deleteBatch(this.manager, 'webhook_deliveries', `creation_time < $1 AND status <> 'Pending'`, [cutoff], limit);
  }

  /**
   * Writes the deliveries of these events in one statement: a row per event with a target URL, and
   * a row per event and endpoint of its workspace that takes it (enabled; event type and channel
   * filters; events of no channel pass any channel filter). Rows are numbered (`seq`) in event order.
   * Every event must name its workspace; the join keeps each event to its own workspace's endpoints.
   */
  async insertFanningOut(events: EventToFanOut[]): Promise<WrittenDelivery[]> {
    for (const event of events) this.scope(event.workspaceId);
    const input = events.map((event, n) => ({
      n,
      workspace_id: event.workspaceId,
      kind: event.kind,
      target_id: event.target?.id ?? null,
      target_url: event.target?.url ?? null,
      payload: event.target?.payload ?? null,
      envelope: event.envelope ?? null,
      channel_id: event.channelId ?? null,
      ordering_key: event.orderingKey?.slice(0, 100) ?? null,
      only_endpoint_id: event.onlyEndpointId ?? null,
    }));
    const rows = await this.manager.query<Array<{ id: string; workspace_id: string; endpoint_id: string | null }>>(
      `WITH ev AS (
         SELECT * FROM jsonb_to_recordset($1::jsonb) AS ev(n int, workspace_id uuid, kind varchar, target_id uuid, target_url varchar,
           payload jsonb, envelope jsonb, channel_id uuid, ordering_key varchar, only_endpoint_id uuid)
       ), fanned AS (
         SELECT ev.n, 0 AS k, ev.target_id AS id, ev.workspace_id, NULL::uuid AS endpoint_id, ev.kind, ev.target_url, ev.payload, NULL::varchar AS ordering_key
           FROM ev WHERE ev.target_url IS NOT NULL
         UNION ALL
         SELECT ev.n, 1, webhook_uuid_v7(), ev.workspace_id, e.id, ev.kind, e.url, ev.envelope, ev.ordering_key
           FROM ev JOIN webhook_endpoints e ON e.workspace_id = ev.workspace_id
          WHERE ev.envelope IS NOT NULL
            AND CASE WHEN ev.only_endpoint_id IS NOT NULL THEN e.id = ev.only_endpoint_id
                     ELSE NOT e.disabled AND (e.event_types IS NULL OR ev.kind = ANY(e.event_types))
                          AND (e.channel_ids IS NULL OR ev.channel_id IS NULL OR ev.channel_id = ANY(e.channel_ids)) END
       )
       INSERT INTO webhook_deliveries (id, workspace_id, endpoint_id, kind, target_url, payload, status, next_attempt_at, ordering_key)
       SELECT id, workspace_id, endpoint_id, kind, target_url, payload, 'Pending', now(), ordering_key FROM fanned ORDER BY n, k
       RETURNING id, workspace_id, endpoint_id`,
      [JSON.stringify(input)],
    );
    return rows.map((row) => ({ id: row.id, workspaceId: row.workspace_id, endpointId: row.endpoint_id }));
  }

  /**
   * Takes the leases of these attempts in one statement: each only while its delivery is Pending at
   * that attempt and nobody else holds an unexpired lease. Answers what was claimed, one entry per
   * item in order: undefined where it could not be taken (and for a repeat of an item in the list).
   */
  async claimMany(items: readonly AttemptToClaim[]): Promise<Array<ClaimedDelivery | undefined>> {
    for (const item of items) this.scope(item.workspaceId);
    const input = items.map((item) => ({
      workspace_id: item.workspaceId,
      id: item.id,
      attempt: item.attempt,
      lease_seconds: item.leaseSeconds,
    }));
    // An UPDATE answers [rows, affected].
    const [rows] = await this.manager.query<[ClaimedDelivery[], number]>(
      // An ordered endpoint's delivery waits while an earlier one of its key is pending (it is queued again when that one ends).
      `UPDATE webhook_deliveries d SET lease_until = now() + make_interval(secs => x.lease_seconds)
         FROM (SELECT DISTINCT ON (id) * FROM jsonb_to_recordset($1::jsonb) AS x(workspace_id uuid, id uuid, attempt int, lease_seconds float8)) x
        -- Each row by its id: (status = 'Pending') IS TRUE keeps the planner off the (workspace_id, status) index, whose
        -- scan of every pending delivery of the workspace per row made claims slower as a dead endpoint's backlog grew.
        WHERE d.workspace_id = x.workspace_id AND d.id = x.id AND (d.status = 'Pending') IS TRUE AND d.cycle_attempts = x.attempt - 1
          AND (d.lease_until IS NULL OR d.lease_until < now())
          -- The endpoint's ordered flag first: the earlier-of-its-key lookup runs only for ordered endpoints.
          AND (d.ordering_key IS NULL OR NOT coalesce((SELECT e.ordered FROM webhook_endpoints e WHERE e.id = d.endpoint_id), false)
               OR NOT EXISTS (SELECT 1 FROM webhook_deliveries p
                               WHERE p.endpoint_id = d.endpoint_id AND p.ordering_key = d.ordering_key AND p.status = 'Pending' AND p.seq < d.seq))
        RETURNING d.id, d.workspace_id, d.endpoint_id, d.ordering_key, d.kind, d.target_url, d.payload, x.attempt,
          (SELECT to_jsonb(e) FROM webhook_endpoints e WHERE e.id = d.endpoint_id) AS endpoint`,
      [JSON.stringify(input)],
    );
    const claimed = new Map(rows.map((row) => [row.id, row]));
    return items.map((item) => {
      const row = claimed.get(item.id);
      // A claimed row answers the first item of its id and attempt only: a repeat must not send it twice.
      if (!row || row.workspace_id !== item.workspaceId || row.attempt !== item.attempt) return undefined;
      claimed.delete(item.id);
      return row;
    });
  }

  /** Whether each attempt is still to be made (its delivery Pending at that attempt), one answer per item in order. */
  async dueMany(items: readonly DeliveryAttempt[]): Promise<boolean[]> {
    for (const item of items) this.scope(item.workspaceId);
    const input = items.map((item) => ({ workspace_id: item.workspaceId, id: item.id, attempt: item.attempt }));
    const rows = await this.manager.query<Array<{ id: string; attempt: number }>>(
      `SELECT d.id, x.attempt FROM webhook_deliveries d
         JOIN jsonb_to_recordset($1::jsonb) AS x(workspace_id uuid, id uuid, attempt int)
           ON d.workspace_id = x.workspace_id AND d.id = x.id
        WHERE d.status = 'Pending' AND d.cycle_attempts = x.attempt - 1`,
      [JSON.stringify(input)],
    );
    const due = new Set(rows.map((row) => `${row.id}:${row.attempt}`));
    return items.map((item) => due.has(`${item.id}:${item.attempt}`));
  }

  /**
   * Records the outcomes of attempts that ended their deliveries (Succeeded or Failed: nothing to
   * schedule) in one statement, releasing their leases.
   */
  async recordEndedMany(outcomes: readonly EndedAttempt[]): Promise<void> {
    for (const outcome of outcomes) this.scope(outcome.workspaceId);
    const input = outcomes.map((o) => ({
      workspace_id: o.workspaceId,
      id: o.id,
      status: o.status,
      attempt: o.attempt,
      last_status_code: o.lastStatusCode,
      last_error: o.lastError,
    }));
    await this.manager.query(
      `UPDATE webhook_deliveries d
          SET status = x.status, attempts = d.attempts + 1, cycle_attempts = x.attempt, last_status_code = x.last_status_code,
              last_error = x.last_error, last_attempt_at = now(), next_attempt_at = NULL, lease_until = NULL
         FROM jsonb_to_recordset($1::jsonb) AS x(workspace_id uuid, id uuid, status varchar, attempt int, last_status_code smallint, last_error varchar)
        WHERE d.workspace_id = x.workspace_id AND d.id = x.id`,
      [JSON.stringify(input)],
    );
  }

  /** The lease on attempt `attempt` if another worker holds (or held) it. */
  findLeaseHeld(
    workspaceId: string,
    id: string,
    attempt: number,
  ): Promise<Pick<WebhookDelivery, 'id' | 'workspaceId' | 'leaseUntil'> | null> {
    return this.repository.findOne({
      select: { id: true, workspaceId: true, leaseUntil: true },
      where: this.scope(workspaceId, { id, status: WebhookDeliveryStatus.Pending, cycleAttempts: attempt - 1, leaseUntil: Not(IsNull()) }),
    });
  }

  /** Ends the endpoint's pending deliveries as Failed with `reason` (the endpoint was deleted or disabled). */
  async failPendingOfEndpoint(workspaceId: string, endpointId: string, reason: string): Promise<number> {
    return this.update(
      workspaceId,
      { endpointId, status: WebhookDeliveryStatus.Pending },
      { status: WebhookDeliveryStatus.Failed, lastError: reason, nextAttemptAt: null, leaseUntil: null },
    );
  }

  /** Puts the endpoint's deliveries created since `since` that ended Failed back to Pending for a new cycle; their ids. */
  async requeueFailedSince(workspaceId: string, endpointId: string, since: Date): Promise<string[]> {
    const [rows] = (await this.sql(
      workspaceId,
      `UPDATE webhook_deliveries SET status = 'Pending', cycle_attempts = 0, next_attempt_at = now(), lease_until = NULL
        WHERE workspace_id = $1 AND endpoint_id = $2 AND status = 'Failed' AND creation_time >= $3
        RETURNING id`,
      [endpointId, since],
    )) as unknown as [Array<{ id: string }>, number];
    return rows.map((row) => row.id);
  }

  /** The earliest pending delivery of an ordered endpoint's key that nobody is attempting: the one to go next. */
  async findNextOfKey(
    workspaceId: string,
    endpointId: string,
    orderingKey: string,
  ): Promise<{ id: string; attempt: number; runAt: Date | null } | undefined> {
    const rows = await this.sql<{ id: string; cycle_attempts: number; next_attempt_at: Date | null; lease_until: Date | null }>(
      workspaceId,
      `SELECT id, cycle_attempts, next_attempt_at, lease_until FROM webhook_deliveries
        WHERE workspace_id = $1 AND endpoint_id = $2 AND ordering_key = $3 AND status = 'Pending'
        ORDER BY seq LIMIT 1`,
      [endpointId, orderingKey],
    );
    const next = rows[0];
    if (!next || (next.lease_until && next.lease_until > new Date())) return undefined;
    return { id: next.id, attempt: next.cycle_attempts + 1, runAt: next.next_attempt_at };
  }
}
