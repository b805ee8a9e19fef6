import { Injectable } from '@nestjs/common';
import { DataSource, Repository } from 'typeorm';
import { isUuid, newId } from '../common/id.js';
import type { PagedResult } from '../common/paging/paged-result.js';
import { pageWithTotal } from '../common/paging/page-with-total.js';
import { parseSorting } from '../common/paging/sorting.js';
import { toFlowDefinition, type ListOutboundIvrFlowsQueryDto, type SaveOutboundIvrFlow } from './dto/outbound-ivr-flow.dto.js';
import type { FlowDefinition, FlowVersion } from './flow-definition.js';
import { findFlowIssues } from './flow-graph.js';
import { OutboundIvrFlowHead } from './outbound-ivr-flow-head.entity.js';
import { OutboundIvrFlowVersion } from './outbound-ivr-flow-version.entity.js';
import { FlowNotFound, FlowVersionNotFound, InvalidFlow } from './outbound-ivr-flows.errors.js';

/** A flow and the definition of its current version. */
export interface StoredFlow {
  flow: OutboundIvrFlowHead;
  definition: FlowDefinition;
}

const SORTABLE = { name: 'f.name', creationtime: 'f.creation_time', lastmodificationtime: 'f.last_modification_time' };

/**
 * Outbound IVR flows of a workspace. Every save writes a new immutable version; a deleted flow is
 * hidden but its versions stay readable through {@link getVersion} for the calls still running them.
 */
@Injectable()
export class OutboundIvrFlowsService {
  private readonly flows: Repository<OutboundIvrFlowHead>;
  private readonly versions: Repository<OutboundIvrFlowVersion>;

  constructor(private readonly dataSource: DataSource) {
    this.flows = dataSource.getRepository(OutboundIvrFlowHead);
    this.versions = dataSource.getRepository(OutboundIvrFlowVersion);
  }

  async create(workspaceId: string, input: SaveOutboundIvrFlow): Promise<StoredFlow> {
    const definition = soundDefinition(input);
    return this.dataSource.transaction(async (manager) => {
      const flow = await manager.save(
        manager.create(OutboundIvrFlowHead, {
          id: newId(),
          workspaceId,
          name: input.name.trim(),
          description: input.description ?? null,
          version: 1,
        }),
      );
      await manager.insert(OutboundIvrFlowVersion, { workspaceId, flowId: flow.id, version: 1, definition });
      return { flow, definition };
    });
  }

  /** Replaces name, description and definition as the next version; concurrent updates queue on the row lock. */
  async update(workspaceId: string, id: string, input: SaveOutboundIvrFlow): Promise<StoredFlow> {
    const definition = soundDefinition(input);
    return this.dataSource.transaction(async (manager) => {
      const flow = await manager.findOne(OutboundIvrFlowHead, { where: { id, workspaceId }, lock: { mode: 'pessimistic_write' } });
      if (!flow) throw FlowNotFound(id);
      flow.name = input.name.trim();
      flow.description = input.description ?? null;
      flow.version += 1;
      await manager.save(flow);
      await manager.insert(OutboundIvrFlowVersion, { workspaceId, flowId: id, version: flow.version, definition });
      return { flow, definition };
    });
  }

  async get(workspaceId: string, id: string): Promise<StoredFlow> {
    const current = await this.current(workspaceId, id);
    return { flow: current.flow, definition: current.definition };
  }

  async list(workspaceId: string, query: ListOutboundIvrFlowsQueryDto): Promise<PagedResult<StoredFlow>> {
    const sort = parseSorting(query.sorting, SORTABLE, { column: 'f.creation_time', direction: 'DESC' });
    const qb = this.flows
      .createQueryBuilder('f')
      .where('f.workspace_id = :workspaceId', { workspaceId })
      .orderBy(sort.column, sort.direction)
      .addOrderBy('f.id', sort.direction);
    const name = query.name?.trim();
    if (name) qb.andWhere('f.name ILIKE :name', { name: `%${name.replace(/[\\%_]/g, '\\$&')}%` });
    const page = await pageWithTotal(qb, query.skipCount, query.maxResultCount);
    if (page.items.length === 0) return { totalCount: page.totalCount, items: [] };
    const versions = await this.versions.find({
      where: page.items.map((flow) => ({ workspaceId, flowId: flow.id, version: flow.version })),
    });
    const definitionOf = new Map(versions.map((v) => [v.flowId, v.definition]));
    return {
      totalCount: page.totalCount,
      items: page.items.map((flow) => ({ flow, definition: definitionOf.get(flow.id) as FlowDefinition })),
    };
  }

  /** Hides the flow; calls already running one of its versions go on. */
  async remove(workspaceId: string, id: string): Promise<void> {
    const result = await this.flows
      .createQueryBuilder()
      .softDelete()
      .where('id = :id AND workspace_id = :workspaceId AND deletion_time IS NULL', { id, workspaceId })
      .execute();
    if (!result.affected) throw FlowNotFound(id);
  }

  /** The version a new call runs; 404 (`OutboundIvr:FlowNotFound`) for an unknown, deleted or foreign flow. */
  async getCurrentVersion(workspaceId: string, flowId: string): Promise<FlowVersion> {
    const current = await this.current(workspaceId, flowId);
    return { flowId: current.flowId, version: current.version, definition: current.definition };
  }

  /** A version a call started with; still readable after the flow is deleted. */
  async getVersion(workspaceId: string, flowId: string, version: number): Promise<FlowVersion> {
    const found =
      isUuid(flowId) && Number.isInteger(version) ? await this.versions.findOne({ where: { workspaceId, flowId, version } }) : null;
    if (!found) throw FlowVersionNotFound(flowId, version);
    return { flowId: found.flowId, version: found.version, definition: found.definition };
  }

  private async current(workspaceId: string, flowId: string): Promise<OutboundIvrFlowVersion & { flow: OutboundIvrFlowHead }> {
    const found = isUuid(flowId)
      ? await this.versions
          .createQueryBuilder('v')
          .innerJoinAndSelect('v.flow', 'f', 'f.version = v.version AND f.deletion_time IS NULL')
          .where('v.workspace_id = :workspaceId AND v.flow_id = :flowId', { workspaceId, flowId })
          .getOne()
      : null;
    if (!found?.flow) throw FlowNotFound(flowId);
    return found as OutboundIvrFlowVersion & { flow: OutboundIvrFlowHead };
  }
}

/** The request as a definition, or a 400 listing every graph problem (nothing is written). */
function soundDefinition(input: SaveOutboundIvrFlow): FlowDefinition {
  const definition = toFlowDefinition(input);
  const issues = findFlowIssues(definition);
  if (issues.length > 0) throw InvalidFlow(issues);
  return definition;
}
