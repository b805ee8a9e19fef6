import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import type { PagedResult } from '../common/paging/paged-result.js';
import type { PagedRequestDto } from '../common/paging/paged-request.dto.js';
import { pageWithTotal } from '../common/paging/page-with-total.js';
import { WorkspaceScopedRepository } from '../database/workspace-scoped.repository.js';
import { Campaign, type CampaignStatus } from './campaign.entity.js';

/** What a status move changes. */
export interface CampaignMove {
  status: CampaignStatus;
  pausedReason?: string | null;
  startedAt?: Date;
  completedAt?: Date;
}

@Injectable()
export class CampaignsRepository extends WorkspaceScopedRepository<Campaign> {
  constructor(@InjectRepository(Campaign) repository: Repository<Campaign>) {
    super(repository);
  }

  /** A page of the workspace's campaigns, newest first (the id breaks ties). */
  page(workspaceId: string, status: CampaignStatus | undefined, paging: PagedRequestDto): Promise<PagedResult<Campaign>> {
    const qb = this.queryBuilder(workspaceId, 'k').orderBy('k.creation_time', 'DESC').addOrderBy('k.id', 'DESC');
    if (status) qb.andWhere('k.status = :status', { status });
    return pageWithTotal(qb, paging.skipCount, paging.maxResultCount);
  }

  /** The campaign's status now (null: gone): what a dispatcher checks before each batch. */
  async statusOf(workspaceId: string, id: string): Promise<CampaignStatus | null> {
    const [row] = await this.sql<{ status: CampaignStatus }>(
      workspaceId,
      'SELECT status FROM campaigns WHERE workspace_id = $1 AND id = $2',
      [id],
    );
    return row?.status ?? null;
  }

  /** Moves the campaign from one of `from` to `patch.status`; false when its status was none of them (someone moved it first). */
  async move(workspaceId: string, id: string, from: CampaignStatus[], patch: CampaignMove): Promise<boolean> {
    const result = await this.repository
      .createQueryBuilder()
      .update()
      .set(patch)
      .where('workspace_id = :workspaceId AND id = :id AND status IN (:...from)', {
        workspaceId: this.scope(workspaceId).workspaceId,
        id,
        from,
      })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /** Pauses the channel's Running campaigns of this template with `reason`; their ids. */
  async pauseRunningOfTemplate(workspaceId: string, channelId: string, name: string, language: string, reason: string): Promise<string[]> {
    const rows = await this.sql<{ id: string }>(
      workspaceId,
      // A SELECT over the UPDATE: TypeORM answers a bare UPDATE … RETURNING as [rows, count].
      `WITH paused AS (UPDATE campaigns SET status = 'Paused', paused_reason = $5
        WHERE workspace_id = $1 AND channel_id = $2 AND status = 'Running' AND kind = 'WhatsAppTemplate'
          AND template->>'templateName' = $3 AND template->>'language' = $4
        RETURNING id) SELECT id FROM paused`,
      [channelId, name, language, reason],
    );
    return rows.map((row) => row.id);
  }
}
