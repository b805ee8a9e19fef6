import { Injectable, Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { ChannelsService, RECENT_TTL_MS } from '../../channels/channels.service.js';
import type { Channel } from '../../channels/channel.entity.js';
import { newId } from '../../common/id.js';
import type { PagedResult } from '../../common/paging/paged-result.js';
import { pgError } from '../../database/pg-errors.js';
import type { ListTemplatesQueryDto } from '../dto/template.dto.js';
import { toTemplateComponents, type TemplateDefinitionDto } from '../dto/template-definition.dto.js';
import { CloudApiWhatsAppProvider, STALE_CURSOR } from '../providers/cloud-api.provider.js';
import { SharedInvalidation } from '../../common/cache/shared-invalidation.js';
import type { TemplateComponent, WhatsAppTemplate } from './whatsapp-template.entity.js';
import { WhatsAppTemplatesRepository, type AccountTemplate, type TemplateChange } from './whatsapp-templates.repository.js';
import {
  DuplicateTemplate,
  InvalidTemplate,
  NotACloudChannel,
  NotASandboxChannel,
  TemplateNameNotFound,
  TemplateNotApproved,
  TemplateNotFound,
  TemplateSourceRequired,
  TemplateSyncFailed,
} from '../whatsapp.errors.js';
import type { CreateTemplateDto } from '../dto/template.dto.js';
import { inTransaction } from '../../database/transactions.js';
import { WebhookPublisher } from '../../webhooks/webhook-publisher.js';
import { WebhookEventType } from '../../webhooks/webhook-kind.js';
import type { TemplateLifecycleEvent } from '../inbound/cloud-webhook.js';
import type { WhatsAppTemplateUpdatedData } from '../../webhooks/webhook-events.js';

/** A stored template's change by Meta, as its listeners (campaigns) and the `whatsapp.template_updated` event see it. */
export interface TemplateUpdate extends WhatsAppTemplateUpdatedData {
  workspaceId: string;
}

/** Runs in the transaction that stores a template's change (a campaign pauses with it or not at all). */
export type TemplateUpdateListener = (update: TemplateUpdate) => Promise<void>;

/** One page of `GET /{waba-id}/message_templates`. */
export interface GraphTemplatePage {
  data: AccountTemplate[];
  paging?: { next?: string };
}

/** Message templates stored per channel. */
@Injectable()
export class TemplatesService {
  private readonly recent = new LRUCache<string, WhatsAppTemplate>({ max: 10_000, ttl: RECENT_TTL_MS });
  private readonly listeners: TemplateUpdateListener[] = [];
  private readonly logger = new Logger(TemplatesService.name);

  constructor(
    private readonly templates: WhatsAppTemplatesRepository,
    private readonly channels: ChannelsService,
    private readonly cloudApi: CloudApiWhatsAppProvider,
    private readonly invalidation: SharedInvalidation,
    private readonly webhooks: WebhookPublisher,
  ) {
    // A sync drops the channel's templates from memory in every process.
    invalidation.on('templates', (channelId) => {
      for (const key of this.recent.keys()) if ((JSON.parse(key) as string[])[1] === channelId) this.recent.delete(key);
    });
  }

  /** Operators: a template for a sandbox channel (cloud-api channels get theirs from the WhatsApp Business Account). */
  async createForOperator(channelId: string, input: TemplateDefinitionDto): Promise<WhatsAppTemplate> {
    const channel = await this.channels.findUnscopedForOperator(channelId);
    if (channel.whatsAppProvider !== 'sandbox') {
      throw NotASandboxChannel('Templates are created by hand only on sandbox channels; cloud-api channels sync them.');
    }
    if (!input.components.some((c) => c.type === 'BODY' && typeof c.text === 'string')) throw InvalidTemplate();
    try {
      return await this.templates.save(
        channel.workspaceId,
        this.templates.create(channel.workspaceId, {
          id: newId(),
          channelId: channel.id,
          ...input,
          components: toTemplateComponents(input.components),
        }),
      );
    } catch (err) {
      if (pgError.is(err, 'unique')) throw DuplicateTemplate(input.name, input.language);
      throw err;
    }
  }

  /**
   * Operators, cloud API channels: pulls every template of the WhatsApp Business Account
   * (`GET /{waba-id}/message_templates`, following the cursor) and upserts them. Returns how many.
   */
  async syncForOperator(channelId: string): Promise<number> {
    const channel = await this.channels.findUnscopedForOperator(channelId);
    const { firstUrl, fetchPage } = this.cloudApi.templatePages(channel);
    if (channel.whatsAppProvider !== 'cloud-api') throw NotACloudChannel();
    let templates: AccountTemplate[] = [];
    let restarted = false;
    for (let url: string | undefined = firstUrl, pages = 0; url && pages < 100; pages++) {
      const page = await fetchPage(url);
      if (page === STALE_CURSOR) {
        // Meta refused a cursor it handed out (v24.0+): start over once, without cursors.
        if (restarted) throw TemplateSyncFailed('The WhatsApp Business Account refused its own template cursor twice.');
        restarted = true;
        templates = [];
        url = firstUrl;
        continue;
      }
      templates.push(...page.data);
      url = page.paging?.next;
    }
    if (templates.length > 0) {
      await this.storeSynced(channel.workspaceId, channel.id, templates);
      this.invalidation.invalidate('templates', channel.id);
    }
    return templates.length;
  }

  /**
   * The account's templates stored: new ones inserted as listed; a stored one takes the account's
   * content, Meta's id and quality score (kept when the account listed none), while a change of its
   * category or status goes through the lifecycle path as Meta's webhook would have (a campaign of
   * it pauses, `whatsapp.template_updated`): a sync is how a missed webhook is caught up.
   */
  private async storeSynced(workspaceId: string, channelId: string, templates: AccountTemplate[]): Promise<void> {
    await inTransaction(async () => {
      const stored = new Map((await this.templates.findByChannel(workspaceId, channelId)).map((t) => [`${t.name}\n${t.language}`, t]));
      const storedOf = (t: AccountTemplate) => stored.get(`${t.name}\n${t.language}`);
      await this.templates.upsertByNameAndLanguage(
        workspaceId,
        channelId,
        templates,
        (t) => t.quality_score?.score ?? storedOf(t)?.qualityScore ?? null,
      );
      for (const listed of templates) {
        const before = storedOf(listed);
        if (!before) continue;
        for (const event of lifecycleOfSync(before, listed)) await this.applyToChannel(workspaceId, channelId, event);
      }
    });
  }

  /** List Templates (`Status`, `Category`, `Name` filters); a `channelId` that is not a WhatsApp channel of the workspace is ChannelNotFoundError. */
  async list(workspaceId: string, query: ListTemplatesQueryDto): Promise<PagedResult<WhatsAppTemplate>> {
    if (query.channelId) await this.channels.get(workspaceId, query.channelId, 'whatsapp');
    return this.templates.page(workspaceId, query);
  }

  /**
   * The channel's APPROVED template of this name and language: 400 WhatsApp:TemplateNotFound when
   * none is stored (a channel whose templates were never synced has none), WhatsApp:TemplateNotApproved
   * (naming its status) when it is stored but not approved; `member`, when given, is the request
   * field the error names. Served from memory for a few seconds (every send reads one); a sync or a
   * lifecycle webhook is seen at once by every process (the `templates` invalidation).
   */
  async approved(channel: Readonly<Channel>, name: string, language: string, member?: string): Promise<Readonly<WhatsAppTemplate>> {
    const template = await this.stored(channel, name, language);
    if (!template) throw TemplateNotFound(name, language, member);
    if (template.status !== 'APPROVED') throw TemplateNotApproved(name, language, template.status, member);
    return template;
  }

  /** The stored template (any status) from memory, else the database; undefined when there is none (not kept). */
  async stored(
    channel: Pick<Channel, 'workspaceId' | 'id'>,
    name: string,
    language: string,
  ): Promise<Readonly<WhatsAppTemplate> | undefined> {
    const key = JSON.stringify([channel.workspaceId, channel.id, name, language]);
    const recent = this.recent.get(key);
    if (recent) return recent;
    const template = await this.templates.findByNameAndLanguage(channel.workspaceId, channel.id, name, language);
    if (!template) return undefined;
    this.recent.set(key, template);
    return template;
  }

  /** Registers what else a template's change does, in its transaction (the campaigns pause theirs). */
  onUpdate(listener: TemplateUpdateListener): void {
    this.listeners.push(listener);
  }

  /**
   * Create Template: on a cloud-api channel, sent to the WhatsApp Business Account
   * (`POST /{waba-id}/message_templates`) and stored as Meta answers it (PENDING while Meta reviews;
   * its lifecycle webhooks move it on). On a sandbox channel it is stored PENDING, answered so, and
   * approved at once, as if Meta's `message_template_status_update` APPROVED had come: the insert and
   * the approval are one transaction, so a failure leaves nothing behind.
   *
   * Meta's side and ours cannot share a transaction. Should storing fail after Meta accepted, the
   * template is held by the account only; the caller's retry then meets Meta's "already exists" and
   * adopts the account's template (read back by name and language) instead of refusing it. Deleting
   * it at Meta instead would block the name for 30 days (Meta's rule for deleted names).
   */
  async create(workspaceId: string, input: CreateTemplateDto): Promise<WhatsAppTemplate> {
    if (!input.components === !input.libraryTemplateName) throw TemplateSourceRequired();
    const channel = await this.channels.get(workspaceId, input.channelId, 'whatsapp');
    const components = input.components ? toTemplateComponents(input.components) : [];
    if (input.components && !components.some((c) => c.type === 'BODY' && typeof c.text === 'string')) throw InvalidTemplate();
    if (await this.templates.findByNameAndLanguage(workspaceId, channel.id, input.name, input.language)) {
      throw DuplicateTemplate(input.name, input.language);
    }
    const held: HeldTemplate =
      channel.whatsAppProvider === 'cloud-api'
        ? await this.createAtAccount(channel, input, components)
        : { providerTemplateId: null, status: 'PENDING', category: input.category, components, qualityScore: null };
    let template: WhatsAppTemplate;
    try {
      template = await inTransaction(async () => {
        const saved = await this.templates.save(
          workspaceId,
          this.templates.create(workspaceId, {
            id: newId(),
            channelId: channel.id,
            name: input.name,
            language: input.language,
            ...held,
            statusReason: null,
          }),
        );
        if (channel.whatsAppProvider === 'sandbox' && saved.status === 'PENDING') {
          await this.applyToChannel(workspaceId, channel.id, {
            kind: 'status',
            name: saved.name,
            language: saved.language,
            providerTemplateId: null,
            status: 'APPROVED',
            reason: null,
          });
        }
        return saved;
      });
    } catch (err) {
      if (pgError.is(err, 'unique')) throw DuplicateTemplate(input.name, input.language);
      throw err;
    }
    this.invalidation.invalidate('templates', channel.id);
    return template;
  }

  /**
   * The template created at the WhatsApp Business Account, as Meta holds it: Meta's answer, with the
   * content read back for a library template (whose create answers only the id); or, when Meta says
   * the account holds this name and language already (a create whose local store failed, or one made
   * in WhatsApp Manager), that template, adopted.
   */
  private async createAtAccount(
    channel: Readonly<Channel>,
    input: CreateTemplateDto,
    components: TemplateComponent[],
  ): Promise<HeldTemplate> {
    const requested: HeldTemplate = {
      providerTemplateId: null,
      status: 'PENDING',
      category: input.category,
      components,
      qualityScore: null,
    };
    const created = await this.cloudApi.createTemplate(channel, {
      name: input.name,
      language: input.language,
      category: input.category,
      ...(input.libraryTemplateName ? { library_template_name: input.libraryTemplateName } : { components }),
    });
    if (created.kind === 'exists') {
      const existing = await this.cloudApi.templateNamed(channel, input.name, input.language);
      if (!existing) throw created.refusal;
      return heldFields(existing, requested);
    }
    const answered: HeldTemplate = {
      ...requested,
      providerTemplateId: created.id || null,
      status: created.status,
      category: created.category ?? input.category,
    };
    if (!input.libraryTemplateName || !answered.providerTemplateId) return answered;
    // The library's content is read back, so the template is sendable as stored.
    const read = await this.heldByAccount(channel, answered.providerTemplateId);
    return read ? heldFields(read, answered) : answered;
  }

  /** The template as the WhatsApp Business Account holds it (`GET /{template-id}`); undefined, logged, when it cannot be read (a later sync fills it in). */
  private async heldByAccount(channel: Readonly<Channel>, providerTemplateId: string): Promise<AccountTemplate | undefined> {
    try {
      return await this.cloudApi.template(channel, providerTemplateId);
    } catch (err) {
      this.logger.warn(
        { err },
        `Reading template ${providerTemplateId} back from the WhatsApp Business Account failed; stored without its content`,
      );
      return undefined;
    }
  }

  /** Delete Template: every language of the name, on the WhatsApp Business Account first for a cloud-api channel. */
  async deleteByName(workspaceId: string, channelId: string, name: string): Promise<number> {
    const channel = await this.channels.get(workspaceId, channelId, 'whatsapp');
    const stored = await this.templates.findByName(workspaceId, channel.id, name);
    if (stored.length === 0) throw TemplateNameNotFound(name);
    if (channel.whatsAppProvider === 'cloud-api') await this.cloudApi.deleteTemplate(channel, name);
    const deleted = await this.templates.deleteByName(workspaceId, channel.id, name);
    this.invalidation.invalidate('templates', channel.id);
    return deleted;
  }

  /**
   * A lifecycle webhook of Meta (status, category or quality) applied to the stored template it
   * names on every channel of the WhatsApp Business Account (templates belong to the account, not
   * to one number): the workspace's WhatsApp channels with the receiving channel's `wabaId`, or the
   * receiving channel alone when it has none (sandbox). Never another workspace's channels: a
   * webhook proves only the receiving channel's app secret, and a `wabaId` is what a workspace's
   * operator typed, so another workspace with the same one is not reached. One transaction holds
   * every channel's change, its `whatsapp.template_updated` event and what the listeners do (a
   * campaign of the template pauses); every process then drops those channels' templates from
   * memory. A channel that does not store the template is skipped. Returns the updates made.
   */
  async applyLifecycle(workspaceId: string, channelId: string, event: TemplateLifecycleEvent): Promise<TemplateUpdate[]> {
    const channelIds = await this.accountChannelIds(workspaceId, channelId);
    const updates = await inTransaction(async () => {
      const made: TemplateUpdate[] = [];
      for (const id of channelIds) {
        const update = await this.applyToChannel(workspaceId, id, event);
        if (update) made.push(update);
      }
      return made;
    });
    for (const update of updates) this.invalidation.invalidate('templates', update.channelId);
    return updates;
  }

  /** The receiving channel and its siblings on one WhatsApp Business Account in the workspace, in a fixed order (locks are taken in it). */
  private async accountChannelIds(workspaceId: string, channelId: string): Promise<string[]> {
    const channel = await this.channels.get(workspaceId, channelId, 'whatsapp');
    if (!channel.whatsAppWabaId) return [channel.id];
    const siblings = await this.channels.whatsAppChannelsOf(workspaceId, { wabaId: channel.whatsAppWabaId });
    return [...new Set([channel.id, ...siblings.map((c) => c.id)])].sort();
  }

  /** One channel's part of {@link applyLifecycle}, in its transaction. */
  private async applyToChannel(workspaceId: string, channelId: string, event: TemplateLifecycleEvent): Promise<TemplateUpdate | null> {
    const template = await this.templates.lockForChange(workspaceId, channelId, event.name, event.language, event.providerTemplateId);
    if (!template) return null;
    const change: TemplateChange = {};
    let reason: string | null;
    if (event.kind === 'status') {
      change.status = statusAfter(event.status, template.status);
      change.statusReason = event.reason;
      reason = event.reason;
      if (event.category) change.category = event.category;
    } else if (event.kind === 'category') {
      change.category = event.newCategory;
      reason = `Category changed from ${event.previousCategory ?? template.category} to ${event.newCategory}`;
    } else {
      change.qualityScore = event.newQualityScore;
      reason = `Quality score changed from ${event.previousQualityScore ?? template.qualityScore ?? 'UNKNOWN'} to ${event.newQualityScore}`;
    }
    if (event.providerTemplateId && !template.providerTemplateId) Object.assign(change, { providerTemplateId: event.providerTemplateId });
    await this.templates.applyChange(workspaceId, template.id, change);
    const update: TemplateUpdate = {
      workspaceId,
      channelId,
      name: template.name,
      language: template.language,
      status: change.status ?? template.status,
      previousStatus: template.status,
      category: change.category ?? template.category,
      previousCategory: template.category,
      qualityScore: change.qualityScore !== undefined ? change.qualityScore : template.qualityScore,
      reason,
    };
    for (const listener of this.listeners) await listener(update);
    const { workspaceId: _w, ...data } = update;
    await this.webhooks.emit(workspaceId, WebhookEventType.WhatsAppTemplateUpdated, data, { channelId, orderingKey: template.id });
    return update;
  }
}

/** The lifecycle events a synced template makes of the stored one: its category, then its status, where they changed. */
function lifecycleOfSync(stored: WhatsAppTemplate, listed: AccountTemplate): TemplateLifecycleEvent[] {
  const base = { name: stored.name, language: stored.language, providerTemplateId: listed.id ?? stored.providerTemplateId };
  const events: TemplateLifecycleEvent[] = [];
  if (listed.category && listed.category !== stored.category) {
    events.push({ ...base, kind: 'category', previousCategory: stored.category, newCategory: listed.category });
  }
  if (listed.status && listed.status !== stored.status) events.push({ ...base, kind: 'status', status: listed.status, reason: null });
  return events;
}

/** What a new template is stored with, as the WhatsApp Business Account holds it (or the sandbox makes it). */
type HeldTemplate = Pick<WhatsAppTemplate, 'providerTemplateId' | 'status' | 'category' | 'components' | 'qualityScore'>;

/** A template as the account lists it, over `fallback` for what the account left out. */
function heldFields(held: AccountTemplate, fallback: HeldTemplate): HeldTemplate {
  return {
    providerTemplateId: held.id ?? fallback.providerTemplateId,
    components: Array.isArray(held.components) ? held.components : fallback.components,
    status: typeof held.status === 'string' ? held.status : fallback.status,
    category: typeof held.category === 'string' ? held.category : fallback.category,
    qualityScore: held.quality_score?.score ?? fallback.qualityScore,
  };
}

/**
 * The status a template has after one of Meta's `message_template_status_update` events. Most events
 * name the new status; some do not: REINSTATED and UNARCHIVED make it usable again (APPROVED), while
 * FLAGGED (quality at risk), LOCKED and UNLOCKED (editing) leave the status as it was, so a template
 * that is still sendable is never refused for them.
 */
export function statusAfter(event: string, current: string): string {
  if (event === 'REINSTATED' || event === 'UNARCHIVED') return 'APPROVED';
  if (event === 'FLAGGED' || event === 'LOCKED' || event === 'UNLOCKED') return current;
  return event;
}
