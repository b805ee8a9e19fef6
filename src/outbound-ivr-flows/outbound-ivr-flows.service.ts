import { Injectable } from '@nestjs/common';
import type { ValidationErrorItem } from '../common/errors/domain-error.js';
import { isUuid, newId } from '../common/id.js';
import { mapPage, type PagedResult } from '../common/paging/paged-result.js';
import { parseSorting } from '../common/paging/sorting.js';
import { IdempotencyService } from '../common/idempotency/idempotency.service.js';
import { PendingResponse } from '../common/idempotency/stored-response.js';
import {
  OutboundIvrFlow,
  toFlowDefinition,
  type ListOutboundIvrFlowsQueryDto,
  type SaveOutboundIvrFlow,
} from './dto/outbound-ivr-flow.dto.js';
import type { FlowDefinition, FlowVersion } from './flow-definition.js';
import { findFlowIssues } from './flow-graph.js';
import type { OutboundIvrFlowHead } from './outbound-ivr-flow-head.entity.js';
import { OutboundIvrFlowVersionsRepository } from './outbound-ivr-flow-versions.repository.js';
import { OutboundIvrFlowsRepository, type FlowHeadFields } from './outbound-ivr-flows.repository.js';
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
  constructor(
    private readonly flows: OutboundIvrFlowsRepository,
    private readonly versions: OutboundIvrFlowVersionsRepository,
    private readonly idempotency: IdempotencyService,
  ) {}

  /** With an Idempotency-Key, the answer is stored in the flow's transaction (API.md §1): a retry never makes a second flow. */
  async create(workspaceId: string, input: SaveOutboundIvrFlow): Promise<StoredFlow> {
    const definition = soundDefinition(input);
    const flow = await this.flows.createWithFirstVersion(workspaceId, newId(), headFields(input), definition, (created) =>
      this.idempotency.storeResponse(PendingResponse.of(workspaceId, () => OutboundIvrFlow.from({ flow: created, definition }))),
    );
    return { flow, definition };
  }

  /** Replaces name, description and definition as the next version; concurrent updates queue on the row lock. */
  async update(workspaceId: string, id: string, input: SaveOutboundIvrFlow): Promise<StoredFlow> {
    const definition = soundDefinition(input);
    const flow = await this.flows.saveNextVersion(workspaceId, id, headFields(input), definition);
    if (!flow) throw FlowNotFound(id);
    return { flow, definition };
  }

  async get(workspaceId: string, id: string): Promise<StoredFlow> {
    const current = await this.current(workspaceId, id);
    return { flow: current.flow, definition: current.definition };
  }

  async list(workspaceId: string, query: ListOutboundIvrFlowsQueryDto): Promise<PagedResult<StoredFlow>> {
    const sort = parseSorting(query.sorting, SORTABLE, { column: 'f.creation_time', direction: 'DESC' });
    const page = await this.flows.page(workspaceId, query.name?.trim() || undefined, sort, query.skipCount, query.maxResultCount);
    if (page.items.length === 0) return { totalCount: page.totalCount, items: [] };
    const versions = await this.versions.findVersions(
      workspaceId,
      page.items.map((flow) => ({ flowId: flow.id, version: flow.version })),
    );
    const definitionOf = new Map(versions.map((v) => [v.flowId, v.definition]));
    return mapPage(page, (flow) => ({ flow, definition: definitionOf.get(flow.id) as FlowDefinition }));
  }

  /** Hides the flow; calls already running one of its versions go on. */
  async remove(workspaceId: string, id: string): Promise<void> {
    if (!(await this.flows.softDeleteLive(workspaceId, id))) throw FlowNotFound(id);
  }

  /** The version a new call runs; 404 (`OutboundIvr:FlowNotFound`) for an unknown, deleted or foreign flow. */
  async getCurrentVersion(workspaceId: string, flowId: string): Promise<FlowVersion> {
    const current = await this.current(workspaceId, flowId);
    return { flowId: current.flowId, version: current.version, definition: current.definition };
  }

  /** A version a call started with; still readable after the flow is deleted. */
  async getVersion(workspaceId: string, flowId: string, version: number): Promise<FlowVersion> {
    const found = isUuid(flowId) && Number.isInteger(version) ? await this.versions.findOne(workspaceId, { flowId, version }) : null;
    if (!found) throw FlowVersionNotFound(flowId, version);
    return { flowId: found.flowId, version: found.version, definition: found.definition };
  }

  private async current(workspaceId: string, flowId: string) {
    const found = isUuid(flowId) ? await this.versions.findCurrent(workspaceId, flowId) : null;
    if (!found) throw FlowNotFound(flowId);
    return found;
  }
}

function headFields(input: SaveOutboundIvrFlow): FlowHeadFields {
  return { name: input.name.trim(), description: input.description ?? null };
}

/** The request as a definition, or a 400 listing every graph problem (nothing is written). */
function soundDefinition(input: SaveOutboundIvrFlow): FlowDefinition {
  const definition = toFlowDefinition(input);
  const issues = [...findFlowIssues(definition), ...voicemailIssues(definition)];
  if (issues.length > 0) throw InvalidFlow(issues);
  return definition;
}

/** LeaveMessage needs exactly one voicemail prompt; a voicemail without it would never play. */
function voicemailIssues(definition: FlowDefinition): ValidationErrorItem[] {
  const given = (['voicemailAudioFileUrl', 'voicemailTtsText'] as const).filter((field) => definition[field] != null);
  if (definition.machineDetection === 'LeaveMessage') {
    if (given.length === 1) return [];
    const message =
      'machineDetection LeaveMessage needs exactly one of voicemailAudioFileUrl and voicemailTtsText: what to leave after the beep.';
    return [{ message, members: ['voicemailAudioFileUrl', 'voicemailTtsText'] }];
  }
  if (given.length === 0) return [];
  return [
    {
      message: `${given.join(' and ')} ${given.length > 1 ? 'are' : 'is'} played only with machineDetection LeaveMessage.`,
      members: [...given],
    },
  ];
}
