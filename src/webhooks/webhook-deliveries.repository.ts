import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Not, type QueryDeepPartialEntity, type Repository } from 'typeorm';
import { pageWithTotal } from '../common/paging/page-with-total.js';
import type { PagedResult } from '../common/paging/paged-result.js';
import { WorkspaceScopedRepository } from '../database/workspace-scoped.repository.js';
import { WebhookDelivery } from './webhook-delivery.entity.js';
import { WebhookDeliveryStatus, type WebhookKind } from './webhook-kind.js';

/** A delivery an attempt has claimed: what the attempt sends. */
export interface ClaimedDelivery {
  id: string;
  workspace_id: string;
  kind: string;
  target_url: string;
  payload: Record<string, unknown>;
}

/** A new event to deliver (its workspace on each row: the publisher writes one statement for all). */
export type NewDelivery = Pick<WebhookDelivery, 'id' | 'workspaceId' | 'kind' | 'targetUrl' | 'payload' | 'status' | 'nextAttemptAt'>;

/** Webhook events of a workspace and the log of their delivery. */
@Injectable()
export class WebhookDeliveriesRepository extends WorkspaceScopedRepository<WebhookDelivery> {
  constructor(@InjectRepository(WebhookDelivery) repository: Repository<WebhookDelivery>) {
    super(repository);
  }

  /** Newest first, optionally of one kind and status. */
  page(
    workspaceId: string,
    filter: { kind?: WebhookKind; status?: WebhookDeliveryStatus },
    skip: number,
    take: number,
  ): Promise<PagedResult<WebhookDelivery>> {
    const qb = this.queryBuilder(workspaceId, 'd').orderBy('d.creation_time', 'DESC').addOrderBy('d.id', 'DESC');
    if (filter.kind) qb.andWhere('d.kind = :kind', { kind: filter.kind });
    if (filter.status) qb.andWhere('d.status = :status', { status: filter.status });
    return pageWithTotal(qb, skip, take);
  }

  /** Inserts new events in one statement; every row must name its workspace. */
  async insertNew(rows: NewDelivery[]): Promise<void> {
    for (const row of rows) this.scope(row.workspaceId);
    await this.repository
      .createQueryBuilder()
      .insert()
      .into(WebhookDelivery)
      .values(rows as QueryDeepPartialEntity<WebhookDelivery>[])
      .execute();
  }

  /**
   * Takes the lease of attempt `attempt` in one statement: only while the delivery is Pending at
   * that attempt and nobody else holds an unexpired lease. Undefined when it cannot be taken.
   */
  async claim(workspaceId: string, id: string, attempt: number, leaseSeconds: number): Promise<ClaimedDelivery | undefined> {
    // An UPDATE answers [rows, affected].
    const [rows] = (await this.sql(
      workspaceId,
      `UPDATE webhook_deliveries SET lease_until = now() + make_interval(secs => $4)
        WHERE workspace_id = $1 AND id = $2 AND status = 'Pending' AND cycle_attempts = $3 - 1 AND (lease_until IS NULL OR lease_until < now())
        RETURNING id, workspace_id, kind, target_url, payload`,
      [id, attempt, leaseSeconds],
    )) as unknown as [ClaimedDelivery[], number];
    return rows[0];
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
}
