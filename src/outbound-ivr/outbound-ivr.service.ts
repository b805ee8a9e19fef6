import { Injectable } from '@nestjs/common';
import { DataSource, Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity.js';
import type { Principal } from '../auth/principal.js';
import { ChannelsService } from '../channels/channels.service.js';
import { newId } from '../common/id.js';
import { AppConfig } from '../config/app-config.js';
import { assertWebhookTarget } from '../webhooks/webhook-target.js';
import type { PagedResult } from '../common/paging/paged-result.js';
import { Outbox } from '../queue/outbox.service.js';
import { OutboundIvrFlowsService } from '../outbound-ivr-flows/outbound-ivr-flows.service.js';
import { JobName } from '../queue/queue-names.js';
import { CallTracker } from './call-tracker.service.js';
import { IVR_DEFAULTS, type CreateOutboundIvrRequest } from './dto/create-outbound-ivr.dto.js';
import { toOutboundIvrRequest, type ListOutboundIvrQueryDto, type OutboundIvrRequest } from './dto/outbound-ivr-request.dto.js';
import { isFinished, OutboundIvrAudioType, OutboundIvrResult, OutboundIvrStatus } from './ivr-enums.js';
import { OutboundIvrRequestEntity } from './outbound-ivr-request.entity.js';
import { IvrAlreadyFinished, IvrInvalidRequest, OutboundIvrNotFound } from './outbound-ivr.errors.js';

/** Outbound IVR requests: created with their outbox job in one transaction, then followed by the worker. */
@Injectable()
export class OutboundIvrService {
  private readonly requests: Repository<OutboundIvrRequestEntity>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly channels: ChannelsService,
    private readonly tracker: CallTracker,
    private readonly outbox: Outbox,
    private readonly flows: OutboundIvrFlowsService,
    private readonly config: AppConfig,
  ) {
    this.requests = dataSource.getRepository(OutboundIvrRequestEntity);
  }

  /**
   * A second request with the same externalId returns the first record and places no call: the
   * insert yields to the unique (workspace, externalId) index, so racing requests agree too.
   */
  async create(principal: Principal, input: CreateOutboundIvrRequest): Promise<OutboundIvrRequest> {
    checkWhatToPlay(input);
    assertWebhookTarget(input.webhookUrl, 'webhookUrl', this.config.webhooks.allowPrivateNetworks);
    const workspaceId = principal.workspaceId;
    await this.channels.getRecent(workspaceId, input.channelId, 'voice');
    const flowVersion = input.flowId ? (await this.flows.getCurrentVersion(workspaceId, input.flowId)).version : null;
    const externalId = input.externalId ?? null;
    const record = this.newRecord(workspaceId, input, flowVersion);
    const created = await this.dataSource.transaction(async (manager) => {
      const inserted = await manager
        .createQueryBuilder()
        .insert()
        .into(OutboundIvrRequestEntity)
        .values(record as QueryDeepPartialEntity<OutboundIvrRequestEntity>)
        .orIgnore()
        .returning(['id'])
        .execute();
      if ((inserted.raw as unknown[]).length === 0) return null; // the externalId is taken
      return this.outbox.write(manager, [{ jobName: JobName.PlaceIvrCall, workspaceId, payload: { requestId: record.id } }]);
    });
    if (!created) return toOutboundIvrRequest(await this.requests.findOneOrFail({ where: { workspaceId, externalId: externalId! } }));
    this.outbox.pushCommitted(created);
    return toOutboundIvrRequest(record);
  }

  async get(workspaceId: string, id: string): Promise<OutboundIvrRequest> {
    return toOutboundIvrRequest(await this.find(workspaceId, id));
  }

  async list(workspaceId: string, query: ListOutboundIvrQueryDto): Promise<PagedResult<OutboundIvrRequest>> {
    const [items, totalCount] = await this.requests.findAndCount({
      where: {
        workspaceId,
        ...(query.status !== undefined && { status: query.status }),
        ...(query.externalId && { externalId: query.externalId }),
      },
      order: { creationTime: 'DESC', id: 'DESC' },
      skip: query.skipCount,
      take: query.maxResultCount,
    });
    return { totalCount, items: items.map(toOutboundIvrRequest) };
  }

  /** Cancels a call not yet finished; a call the provider knows of is hung up there (the tracker queues it). */
  async cancel(workspaceId: string, id: string): Promise<OutboundIvrRequest> {
    const ref = { id, workspaceId };
    const before = await this.find(workspaceId, id);
    if (isFinished(before.status)) throw IvrAlreadyFinished(id);
    await this.tracker.progress(ref, { kind: 'ended', at: new Date(), ending: 'canceled' });
    const after = await this.find(workspaceId, id);
    if (after.status !== OutboundIvrStatus.Cancelled) throw IvrAlreadyFinished(id);
    return toOutboundIvrRequest(after);
  }

  private async find(workspaceId: string, id: string): Promise<OutboundIvrRequestEntity> {
    const record = await this.requests.findOne({ where: { id, workspaceId } });
    if (!record) throw OutboundIvrNotFound(id);
    return record;
  }

  private newRecord(workspaceId: string, input: CreateOutboundIvrRequest, flowVersion: number | null): OutboundIvrRequestEntity {
    const ttsText = input.ttsText ?? null;
    return Object.assign(new OutboundIvrRequestEntity(), {
      id: newId(),
      workspaceId,
      channelId: input.channelId,
      externalId: input.externalId ?? null,
      destinationNumber: input.destinationNumber,
      audioFileUrl: input.audioFileUrl ?? null,
      ttsText,
      ttsVoice: input.ttsVoice ?? IVR_DEFAULTS.ttsVoice,
      audioType: input.flowId ? null : ttsText ? OutboundIvrAudioType.TextToSpeech : OutboundIvrAudioType.AudioFile,
      welcomeMessageFileUrl: input.welcomeMessageFileUrl ?? null,
      successMessageFileUrl: input.successMessageFileUrl ?? null,
      failedMessageFileUrl: input.failedMessageFileUrl ?? null,
      options: (input.options ?? []).map((o) => ({
        digit: o.digit,
        description: o.description,
        responseMessageFileUrl: o.responseMessageFileUrl ?? null,
      })),
      webhookUrl: input.webhookUrl,
      maxAudioRetries: input.maxAudioRetries ?? IVR_DEFAULTS.maxAudioRetries,
      inputTimeoutMs: input.inputTimeoutMs ?? IVR_DEFAULTS.inputTimeoutMs,
      digitTimeoutMs: input.digitTimeoutMs ?? IVR_DEFAULTS.digitTimeoutMs,
      flowId: input.flowId ?? null,
      flowVersion,
      status: OutboundIvrStatus.Pending,
      result: OutboundIvrResult.None,
      pressedDigit: null,
      initiatedAt: null,
      ringingAt: null,
      answeredAt: null,
      completedAt: null,
      callDurationSeconds: null,
      callId: null,
      errorMessage: null,
      hangupCause: null,
      answers: [],
      placementStartedAt: null,
      script: null,
      dialog: null,
      creationTime: new Date(),
    });
  }
}

/** Exactly one of audioFileUrl and ttsText with 1-12 options, or a flowId with none of them. */
function checkWhatToPlay(input: CreateOutboundIvrRequest): void {
  if (input.flowId) {
    const extra = (['audioFileUrl', 'ttsText', 'options'] as const).filter((field) => input[field] != null);
    if (extra.length > 0) throw IvrInvalidRequest(`A request with flowId plays the flow; leave out ${extra.join(', ')}.`, [...extra]);
    return;
  }
  const given = (['audioFileUrl', 'ttsText'] as const).filter((field) => input[field] != null);
  if (given.length !== 1)
    throw IvrInvalidRequest('Give exactly one of audioFileUrl and ttsText (or a flowId).', ['audioFileUrl', 'ttsText']);
  if (!input.options || input.options.length === 0) throw IvrInvalidRequest('options must have 1 to 12 entries.', ['options']);
}
