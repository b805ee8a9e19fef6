import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '../database/workspace-scoped.repository.js';
import type { FlowDefinition } from './flow-definition.js';
import type { OutboundIvrFlowHead } from './outbound-ivr-flow-head.entity.js';
import { OutboundIvrFlowVersion } from './outbound-ivr-flow-version.entity.js';

/** The immutable versions of a workspace's flows. */
@Injectable()
export class OutboundIvrFlowVersionsRepository extends WorkspaceScopedRepository<OutboundIvrFlowVersion> {
  constructor(@InjectRepository(OutboundIvrFlowVersion) repository: Repository<OutboundIvrFlowVersion>) {
    super(repository);
  }

  /** Writes a new version (one statement; versions are never changed). */
  async insert(workspaceId: string, flowId: string, version: number, definition: FlowDefinition): Promise<void> {
    this.scope(workspaceId);
    await this.repository.insert({ workspaceId, flowId, version, definition });
  }

  /** The versions named by `keys`, in one query. */
  findVersions(workspaceId: string, keys: ReadonlyArray<{ flowId: string; version: number }>): Promise<OutboundIvrFlowVersion[]> {
    if (keys.length === 0) return Promise.resolve([]);
    return this.repository.find({ where: keys.map(({ flowId, version }) => this.scope(workspaceId, { flowId, version })) });
  }

  /** The current version of a flow not deleted, with its head; null for an unknown, deleted or foreign flow. */
  async findCurrent(workspaceId: string, flowId: string): Promise<(OutboundIvrFlowVersion & { flow: OutboundIvrFlowHead }) | null> {
    const found = await this.queryBuilder(workspaceId, 'v')
      .innerJoinAndSelect('v.flow', 'f', 'f.version = v.version AND f.deletion_time IS NULL')
      .andWhere('v.flow_id = :flowId', { flowId })
      .getOne();
    return found?.flow ? (found as OutboundIvrFlowVersion & { flow: OutboundIvrFlowHead }) : null;
  }
}
