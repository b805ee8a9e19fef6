import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { pageWithTotal } from '../common/paging/page-with-total.js';
import type { PagedResult } from '../common/paging/paged-result.js';
import { WorkspaceScopedRepository } from '../database/workspace-scoped.repository.js';
import { WebhookEndpoint } from './webhook-endpoint.entity.js';

/** What an enabled endpoint takes (null: everything). */
export interface EndpointFilter {
  eventTypes: string[] | null;
  channelIds: string[] | null;
}

/** A workspace's webhook endpoints. */
@Injectable()
export class WebhookEndpointsRepository extends WorkspaceScopedRepository<WebhookEndpoint> {
  constructor(@InjectRepository(WebhookEndpoint) repository: Repository<WebhookEndpoint>) {
    super(repository);
  }

  /** Oldest first. */
  page(workspaceId: string, skip: number, take: number): Promise<PagedResult<WebhookEndpoint>> {
    const qb = this.queryBuilder(workspaceId, 'e').orderBy('e.creation_time', 'ASC').addOrderBy('e.id', 'ASC');
    return pageWithTotal(qb, skip, take);
  }

  /** The filters of the workspace's enabled endpoints. */
  async enabledFilters(workspaceId: string): Promise<EndpointFilter[]> {
    const rows = await this.sql<{ event_types: string[] | null; channel_ids: string[] | null }>(
      workspaceId,
      `SELECT event_types, channel_ids FROM webhook_endpoints WHERE workspace_id = $1 AND NOT disabled`,
    );
    return rows.map((row) => ({ eventTypes: row.event_types, channelIds: row.channel_ids }));
  }

  async findRateLimit(workspaceId: string, id: string): Promise<number | null | undefined> {
    const rows = await this.sql<{ rate_limit_per_second: number | null }>(
      workspaceId,
      `SELECT rate_limit_per_second FROM webhook_endpoints WHERE workspace_id = $1 AND id = $2`,
      [id],
    );
    return rows[0]?.rate_limit_per_second;
  }

  /** Notes a failed attempt: the endpoint has been failing since its first one after the last success. Answers since when. */
  async markFailing(workspaceId: string, id: string): Promise<{ failingSince: Date; disabled: boolean } | undefined> {
    const [rows] = (await this.sql(
      workspaceId,
      `UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, now()) WHERE workspace_id = $1 AND id = $2
       RETURNING failing_since, disabled`,
      [id],
    )) as unknown as [Array<{ failing_since: Date; disabled: boolean }>, number];
    return rows[0] && { failingSince: rows[0].failing_since, disabled: rows[0].disabled };
  }

  async clearFailing(workspaceId: string, id: string): Promise<void> {
    await this.sql(
      workspaceId,
      `UPDATE webhook_endpoints SET failing_since = NULL WHERE workspace_id = $1 AND id = $2 AND failing_since IS NOT NULL`,
      [id],
    );
  }

  /** Disables the endpoint unless it is already; the endpoint as disabled, or undefined when it was already (or is gone). */
  async disable(workspaceId: string, id: string, reason: string): Promise<WebhookEndpoint | undefined> {
    const changed = await this.repository
      .createQueryBuilder()
      .update(WebhookEndpoint)
      .set({ disabled: true, disabledReason: reason, disabledAt: () => 'now()' })
      .where('workspace_id = :workspaceId AND id = :id AND NOT disabled', { workspaceId: this.scope(workspaceId).workspaceId, id })
      .execute();
    if (!changed.affected) return undefined;
    return (await this.findById(workspaceId, id)) ?? undefined;
  }
}
