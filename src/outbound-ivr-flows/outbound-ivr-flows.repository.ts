import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { inTransaction } from '../database/transactions.js';
import { pageWithTotal } from '../common/paging/page-with-total.js';
import type { PagedResult } from '../common/paging/paged-result.js';
import type { SortOrder } from '../common/paging/sorting.js';
import { likePattern } from '../database/sql-helpers.js';
import { WorkspaceScopedRepository } from '../database/workspace-scoped.repository.js';
import type { FlowDefinition } from './flow-definition.js';
import { OutboundIvrFlowHead } from './outbound-ivr-flow-head.entity.js';
import { OutboundIvrFlowVersionsRepository } from './outbound-ivr-flow-versions.repository.js';

/** What a save changes on the flow besides its definition. */
export interface FlowHeadFields {
  name: string;
  description: string | null;
}

/**
 * The flows of a workspace (name and current version; soft-deleted). A save writes the head and
 * its new version in one transaction.
 */
@Injectable()
export class OutboundIvrFlowsRepository extends WorkspaceScopedRepository<OutboundIvrFlowHead> {
  constructor(
    @InjectRepository(OutboundIvrFlowHead) repository: Repository<OutboundIvrFlowHead>,
    private readonly versions: OutboundIvrFlowVersionsRepository,
  ) {
    super(repository);
  }

  /** A new flow at version 1 with its definition; `alsoInTransaction` runs last in its transaction (the Idempotency-Key's answer is stored there). */
  createWithFirstVersion(
    workspaceId: string,
    id: string,
    fields: FlowHeadFields,
    definition: FlowDefinition,
    alsoInTransaction?: (flow: OutboundIvrFlowHead) => Promise<void>,
  ): Promise<OutboundIvrFlowHead> {
    return inTransaction(async () => {
      const flow = await this.save(workspaceId, this.create(workspaceId, { id, ...fields, version: 1 }));
      await this.versions.insert(workspaceId, flow.id, 1, definition);
      await alsoInTransaction?.(flow);
      return flow;
    });
  }

  /**
   * Replaces name, description and definition as the next version; concurrent saves queue on the
   * head's row lock. Null when there is no such flow.
   */
  saveNextVersion(
    workspaceId: string,
    id: string,
    fields: FlowHeadFields,
    definition: FlowDefinition,
  ): Promise<OutboundIvrFlowHead | null> {
    return inTransaction(async () => {
      const flow = await this.findById(workspaceId, id, { lock: true });
      if (!flow) return null;
      Object.assign(flow, fields, { version: flow.version + 1 });
      await this.save(workspaceId, flow);
      await this.versions.insert(workspaceId, id, flow.version, definition);
      return flow;
    });
  }

  /** A page of flows in `sort` order (then by id), optionally those whose name contains `name` in any case. */
  page(
    workspaceId: string,
    name: string | undefined,
    sort: SortOrder,
    skip: number,
    take: number,
  ): Promise<PagedResult<OutboundIvrFlowHead>> {
    const qb = this.queryBuilder(workspaceId, 'f').orderBy(sort.column, sort.direction).addOrderBy('f.id', sort.direction);
    if (name) qb.andWhere('f.name ILIKE :name', { name: likePattern(name) });
    return pageWithTotal(qb, skip, take);
  }

  /** Hides a flow not yet deleted; false when there is none. */
  async softDeleteLive(workspaceId: string, id: string): Promise<boolean> {
    this.scope(workspaceId);
    const result = await this.repository
      .createQueryBuilder()
      .softDelete()
      .where('id = :id AND workspace_id = :workspaceId AND deletion_time IS NULL', { id, workspaceId })
      .execute();
    return !!result.affected;
  }
}
