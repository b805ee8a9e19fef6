import { Injectable, Logger } from '@nestjs/common';
import type { Principal } from '../auth/principal.js';
import { ChannelsService } from '../channels/channels.service.js';
import { DomainError, NotFoundError } from '../common/errors/domain-error.js';
import { newId } from '../common/id.js';
import type { PagedResult } from '../common/paging/paged-result.js';
import type { PagedRequestDto } from '../common/paging/paged-request.dto.js';
import { parseIsoDateTime } from '../common/time/iso-date-time.js';
import { ContactPropertiesService } from '../contact-properties/contact-properties.service.js';
import type { ContactCriteria } from '../contacts/contact-criteria.js';
import { ContactsService } from '../contacts/contacts.service.js';
import { Outbox } from '../queue/outbox.service.js';
import { JobName } from '../queue/queue-names.js';
import { SendAcceptance } from '../whatsapp/outbound/send-acceptance.service.js';
import { OutboundIvrService } from '../outbound-ivr/outbound-ivr.service.js';
import { buildTemplateMessage } from '../whatsapp/templates/template-message.js';
import { TemplatesService, type TemplateUpdate } from '../whatsapp/templates/templates.service.js';
import type { Campaign, CampaignAudience, CampaignStatus, CampaignTemplate } from './campaign.entity.js';
import { propertyNames, sampleParameters } from './campaign-parameters.js';
import { CampaignRecipientsRepository, type WithoutNumber } from './campaign-recipients.repository.js';
import { PHONE_NUMBER_REQUIRED } from '../outbound-ivr/outbound-ivr.errors.js';
import { CampaignsRepository, type CampaignMove } from './campaigns.repository.js';
import { CampaignNotFound, IllegalCampaignTransition, InvalidCampaign } from './campaigns.errors.js';
import type { CampaignCountsDto, CampaignRecipientDto, CreateCampaignDto, RecipientStatus } from './dto/campaign.dto.js';
import { inTransaction } from '../database/transactions.js';
import { WhatsAppUsage } from '../whatsapp/account/usage.service.js';
import type { CampaignUsageDto } from '../whatsapp/account/dto/usage.dto.js';

/** How far ahead a campaign may be scheduled (as `sendAt`, API.md §13). */
const MAX_SCHEDULE_AHEAD_MS = 30 * 24 * 3600 * 1000;
/** A snapshot this large has the recipients table ANALYZEd (see CampaignRecipientsRepository.refreshStatistics). */
const ANALYZE_AFTER_ROWS = 1000;

/**
 * Campaigns (API.md §13): creation with its checks, the state machine Draft → Scheduled → Running
 * → Paused / Completed / Cancelled, the audience snapshot at start, and the read-time counts. The
 * sends themselves are the dispatcher's ({@link CampaignDispatcher}).
 */
@Injectable()
export class CampaignsService {
  private readonly logger = new Logger(CampaignsService.name);

  constructor(
    private readonly campaigns: CampaignsRepository,
    private readonly recipients: CampaignRecipientsRepository,
    private readonly channels: ChannelsService,
    private readonly templates: TemplatesService,
    private readonly contacts: ContactsService,
    private readonly properties: ContactPropertiesService,
    private readonly sends: SendAcceptance,
    private readonly outbox: Outbox,
    private readonly ivr: OutboundIvrService,
    private readonly whatsAppUsage: WhatsAppUsage,
  ) {
    templates.onUpdate((update) => this.templateUpdated(update));
  }

  /**
   * API.md §14: a Running campaign whose template Meta paused, disabled or recategorised as
   * MARKETING pauses, in the transaction that stores the change, with a `pausedReason` naming it
   * (`TemplatePaused`, `TemplateDisabled`, `TemplateRecategorisedToMarketing`). Resumed, it is sent
   * under the template's new category (consent and quiet hours of marketing).
   */
  private async templateUpdated(update: TemplateUpdate): Promise<void> {
    const reason = templatePauseReason(update);
    if (!reason) return;
    const paused = await this.campaigns.pauseRunningOfTemplate(update.workspaceId, update.channelId, update.name, update.language, reason);
    for (const id of paused) this.logger.warn(`Campaign ${id} paused: ${reason} (template ${update.name}, ${update.language})`);
  }

  /** Create Campaign: checked as its sends will be (channel, approved template and its parameters, audience), saved as Draft. */
  async create(principal: Principal, input: CreateCampaignDto): Promise<Campaign> {
    const workspaceId = principal.workspaceId;
    const audience = audienceOf(input);
    const scheduledAt = scheduledAtOf(input.scheduledAt);
    let template: CampaignTemplate | null = null;
    if (input.kind === 'WhatsAppTemplate') {
      if (!input.template) throw InvalidCampaign('template is required for a WhatsAppTemplate campaign.', 'template');
      if (input.ivr) throw InvalidCampaign('ivr applies to OutboundIvr campaigns only.', 'ivr');
      if (input.redial) throw InvalidCampaign('redial applies to OutboundIvr campaigns only.', 'redial');
      const { templateName, language, parameters } = input.template;
      template = { templateName, language, parameters: parameters ?? [] };
      await this.checkTemplate(workspaceId, input.channelId, template);
    } else {
      if (!input.ivr) throw InvalidCampaign('ivr is required for an OutboundIvr campaign.', 'ivr');
      if (input.template) throw InvalidCampaign('template applies to WhatsAppTemplate campaigns only.', 'template');
      await this.ivr.check(workspaceId, { ...input.ivr, channelId: input.channelId });
    }
    // Unknown tags or properties, and filters that do not fit their property, are refused now rather than at start.
    if (!audience.contactIds) await this.contacts.checkCriteria(workspaceId, criteriaOf(audience));
    const campaign = this.campaigns.create(workspaceId, {
      id: newId(),
      name: input.name,
      channelId: input.channelId,
      kind: input.kind,
      status: 'Draft',
      pausedReason: null,
      template,
      ivr: input.ivr ?? null,
      audience,
      redial: input.redial ? { maxAttempts: input.redial.maxAttempts, on: input.redial.on, delayMinutes: input.redial.delayMinutes } : null,
      scheduledAt,
      startedAt: null,
      completedAt: null,
      creatorId: principal.serviceAccountId,
      creatorName: principal.name ?? null,
      creationTime: new Date(),
    });
    return this.campaigns.save(workspaceId, campaign);
  }

  async get(workspaceId: string, id: string): Promise<Campaign> {
    const campaign = await this.campaigns.findById(workspaceId, id);
    if (!campaign) throw CampaignNotFound(id);
    return campaign;
  }

  list(workspaceId: string, status: CampaignStatus | undefined, paging: PagedRequestDto): Promise<PagedResult<Campaign>> {
    return this.campaigns.page(workspaceId, status, paging);
  }

  /** CampaignDto's usage of each campaign: its messages Meta priced (a campaign without any is absent). */
  usage(workspaceId: string, ids: string[]): Promise<Map<string, CampaignUsageDto>> {
    return this.whatsAppUsage.ofCampaigns(workspaceId, ids);
  }

  /** CampaignDto's counts of each campaign. */
  counts(workspaceId: string, ids: string[]): Promise<Map<string, CampaignCountsDto>> {
    return this.recipients.counts(workspaceId, ids);
  }

  async recipientsPage(
    workspaceId: string,
    id: string,
    status: RecipientStatus | undefined,
    paging: PagedRequestDto,
  ): Promise<PagedResult<CampaignRecipientDto>> {
    await this.get(workspaceId, id);
    return this.recipients.page(workspaceId, id, status, paging);
  }

  /**
   * Start: the audience is snapshotted (one INSERT … SELECT) and the campaign becomes Running, or
   * Scheduled when its `scheduledAt` is ahead; the dispatcher's job is written in the same
   * transaction (due at `scheduledAt`).
   */
  async start(workspaceId: string, id: string): Promise<Campaign> {
    const campaign = await this.get(workspaceId, id);
    if (campaign.status !== 'Draft') throw IllegalCampaignTransition('start', campaign.status);
    // Built on the pool before the transaction: reading there takes no second connection.
    const audience = await this.contacts.audienceSql(workspaceId, criteriaOf(campaign.audience), campaign.audience.contactIds);
    const withoutNumber = await this.withoutNumber(campaign);
    const now = new Date();
    const later = campaign.scheduledAt !== null && campaign.scheduledAt > now;
    let snapshotted = 0;
    const started = await inTransaction(async () => {
      const patch = later ? { status: 'Scheduled' as const } : { status: 'Running' as const, startedAt: now };
      await this.moveIn(campaign, 'start', ['Draft'], patch);
      snapshotted = await this.recipients.snapshot(workspaceId, id, audience, withoutNumber);
      await this.enqueueDispatch(workspaceId, id, later ? campaign.scheduledAt : null);
      return { ...campaign, ...patch };
    });
    if (snapshotted >= ANALYZE_AFTER_ROWS) await this.refreshRecipientStatistics();
    return started;
  }

  /**
   * A contact without a number: an IVR campaign over WhatsApp calls it by its BSUID (API.md §15),
   * with the consent and permission rules of any call; on a phone line it is SkippedNoPhone, saying
   * why (as Create Outbound IVR would refuse the call); a template campaign skips it as before.
   */
  private async withoutNumber(campaign: Campaign): Promise<WithoutNumber> {
    if (!campaign.ivr) return { byWhatsAppUserId: false, errorCode: null };
    // A channel that cannot call any more (deleted, calling turned off) fails each call when it is placed, saying so.
    const byWhatsAppUserId = await this.ivr.callsWhatsAppUserIds(campaign.workspaceId, campaign.channelId).catch((err: unknown) => {
      if (err instanceof NotFoundError) return false;
      throw err;
    });
    return { byWhatsAppUserId, errorCode: byWhatsAppUserId ? null : PHONE_NUMBER_REQUIRED };
  }

  /** The campaign has started whatever happens here: a failure only leaves the planner's figures older. */
  private async refreshRecipientStatistics(): Promise<void> {
    try {
      await this.recipients.refreshStatistics();
    } catch (err) {
      this.logger.warn({ err }, 'ANALYZE of campaign_recipients skipped');
    }
  }

  /**
   * Pause: a Running campaign stops sending (a send not yet accepted is not made: its link checks
   * the status); a Scheduled one is held, and does not start at its time.
   */
  async pause(workspaceId: string, id: string): Promise<Campaign> {
    return this.move(workspaceId, id, 'pause', ['Running', 'Scheduled'], { status: 'Paused', pausedReason: 'Manual' });
  }

  /** Resume: a Paused campaign goes on where it stopped; one paused before it started waits for its `scheduledAt` again if still ahead. */
  async resume(workspaceId: string, id: string): Promise<Campaign> {
    const campaign = await this.get(workspaceId, id);
    const waits = campaign.startedAt === null && campaign.scheduledAt !== null && campaign.scheduledAt > new Date();
    return inTransaction(async () => {
      const patch = waits
        ? { status: 'Scheduled' as const, pausedReason: null }
        : { status: 'Running' as const, pausedReason: null, startedAt: campaign.startedAt ?? new Date() };
      await this.moveIn(campaign, 'resume', ['Paused'], patch);
      await this.enqueueDispatch(workspaceId, id, waits ? campaign.scheduledAt : null);
      return { ...campaign, ...patch };
    });
  }

  /**
   * Cancel: what was sent stays sent; recipients still Pending become Cancelled, and sends waiting
   * out quiet hours are cancelled before they leave.
   */
  async cancel(workspaceId: string, id: string): Promise<Campaign> {
    const campaign = await this.get(workspaceId, id);
    const patch = { status: 'Cancelled' as const, pausedReason: null, completedAt: new Date() };
    await inTransaction(async () => {
      await this.moveIn(campaign, 'be cancelled', ['Draft', 'Scheduled', 'Running', 'Paused'], patch);
      await this.recipients.cancelPending(workspaceId, id);
    });
    // One that left meanwhile is a 409 here: it was sent (or placed), and stays so.
    const leftAlready = (err: unknown) => {
      if (!(err instanceof DomainError)) throw err;
    };
    for (const eventId of await this.recipients.waitingEventIds(workspaceId, id))
      await this.sends.cancelScheduled(workspaceId, eventId).catch(leftAlready);
    for (const callId of await this.recipients.waitingCallIds(workspaceId, id))
      await this.ivr.cancelScheduled(workspaceId, callId).catch(leftAlready);
    return { ...campaign, ...patch };
  }

  private async move(workspaceId: string, id: string, action: string, from: CampaignStatus[], patch: CampaignMove) {
    const campaign = await this.get(workspaceId, id);
    if (!(await this.campaigns.move(workspaceId, id, from, patch)))
      throw IllegalCampaignTransition(action, (await this.get(workspaceId, id)).status);
    return { ...campaign, ...patch };
  }

  /** The move inside `tx`; a 409 naming the status it found when the campaign was not in one of `from`. */
  private async moveIn(campaign: Campaign, action: string, from: CampaignStatus[], patch: CampaignMove): Promise<void> {
    const campaigns = this.campaigns;
    if (await campaigns.move(campaign.workspaceId, campaign.id, from, patch)) return;
    const now = await campaigns.statusOf(campaign.workspaceId, campaign.id);
    if (!now) throw CampaignNotFound(campaign.id);
    throw IllegalCampaignTransition(action, now);
  }

  private async enqueueDispatch(workspaceId: string, campaignId: string, runAt: Date | null): Promise<void> {
    await this.outbox.enqueue([{ jobName: JobName.DispatchCampaign, workspaceId, runAt, payload: { campaignId } }]);
  }

  /**
   * The template as Send Template checks it (the channel's, approved; parameters that fit, with a
   * sample in place of each placeholder), and every property a placeholder names exists.
   */
  private async checkTemplate(workspaceId: string, channelId: string, template: CampaignTemplate): Promise<void> {
    const channel = await this.channels.getRecent(workspaceId, channelId, 'whatsapp');
    const approved = await this.templates.approved(channel, template.templateName, template.language);
    buildTemplateMessage(approved, undefined, sampleParameters(template));
    const named = propertyNames(template);
    if (named.length === 0) return;
    const known = new Set((await this.properties.list(workspaceId)).map((definition) => definition.name.toLowerCase()));
    const unknown = named.find((name) => !known.has(name.toLowerCase()));
    if (unknown) throw InvalidCampaign(`{{property.${unknown}}} names no contact property of the workspace.`, 'template.parameters');
  }
}

/** The audience as stored: exactly one of its three forms (a 400 otherwise). */
function audienceOf(input: CreateCampaignDto): CampaignAudience {
  const { contactIds, tagIds, search } = input.audience;
  const given = [contactIds, tagIds, search].filter((part) => part !== undefined).length;
  if (given !== 1) throw InvalidCampaign('audience must have exactly one of contactIds, tagIds and search.', 'audience');
  if (contactIds) return { contactIds: [...new Set(contactIds.map((id) => id.toLowerCase()))] };
  if (tagIds) return { tagIds };
  const { filter, whatsAppUserId, tagIds: searchTags, customPropertyFilters, consent } = search!;
  return {
    search: JSON.parse(JSON.stringify({ filter, whatsAppUserId, tagIds: searchTags, customPropertyFilters, consent })) as Record<
      string,
      unknown
    >,
  };
}

/** Search Contacts' criteria of an audience (none for a list of ids). */
function criteriaOf(audience: CampaignAudience): ContactCriteria {
  if (audience.tagIds) return { tagIds: audience.tagIds };
  return audience.search ?? {};
}

/** `scheduledAt`: later than now and at most 30 days ahead, as `sendAt` is (a 400 otherwise). */
function scheduledAtOf(value: string | undefined): Date | null {
  if (value === undefined) return null;
  const at = parseIsoDateTime(value)!;
  const ahead = at.getTime() - Date.now();
  if (ahead <= 0 || ahead > MAX_SCHEDULE_AHEAD_MS)
    throw InvalidCampaign('scheduledAt must be later than now and at most 30 days ahead.', 'scheduledAt');
  return at;
}

/** Why a template's change pauses the campaigns sending it, or null when they go on. */
export function templatePauseReason(
  update: Pick<TemplateUpdate, 'status' | 'previousStatus' | 'category' | 'previousCategory'>,
): string | null {
  if (update.status !== update.previousStatus) {
    if (update.status === 'PAUSED') return 'TemplatePaused';
    if (update.status === 'DISABLED') return 'TemplateDisabled';
  }
  if (update.category === 'MARKETING' && update.previousCategory !== 'MARKETING') return 'TemplateRecategorisedToMarketing';
  return null;
}
