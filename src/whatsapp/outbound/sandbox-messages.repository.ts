import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { newId } from '../../common/id.js';
import type { PagedRequestDto } from '../../common/paging/paged-request.dto.js';
import type { PagedResult } from '../../common/paging/paged-result.js';
import { pageWithTotal } from '../../common/paging/page-with-total.js';
import { deleteBatch } from '../../database/sql-helpers.js';
import { WorkspaceScopedRepository } from '../../database/workspace-scoped.repository.js';
import { SandboxMessage } from './sandbox-message.entity.js';

@Injectable()
export class SandboxMessagesRepository extends WorkspaceScopedRepository<SandboxMessage> {
  constructor(@InjectRepository(SandboxMessage) repository: Repository<SandboxMessage>) {
    super(repository);
  }

  /** Keeps what the sandbox was asked to send on a channel (one insert). */
  async record(workspaceId: string, channelId: string, providerMessageId: string, request: Record<string, unknown>): Promise<void> {
    this.scope(workspaceId);
    await this.repository.insert({ id: newId(), workspaceId, channelId, providerMessageId, request: request as object });
  }

  /** A page of what the sandbox sent on a channel, newest first. */
  page(workspaceId: string, channelId: string, paging: PagedRequestDto): Promise<PagedResult<SandboxMessage>> {
    const qb = this.queryBuilder(workspaceId, 'm')
      .andWhere('m.channel_id = :channelId', { channelId })
      .orderBy('m.creation_time', 'DESC')
      .addOrderBy('m.id', 'DESC');
    return pageWithTotal(qb, paging.skipCount, paging.maxResultCount);
  }

  /** Retention, across workspaces by design (a system job): deletes at most `limit` messages sent before `cutoff`; the number deleted. */
  deleteUnscopedBefore(cutoff: Date, limit: number): Promise<number> {
    return deleteBatch(this.manager, 'whatsapp_sandbox_messages', 'creation_time < $1', [cutoff], limit);
  }
}
