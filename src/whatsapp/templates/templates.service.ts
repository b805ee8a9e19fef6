import { Injectable } from '@nestjs/common';
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
import type { WhatsAppTemplate } from './whatsapp-template.entity.js';
import { WhatsAppTemplatesRepository, type AccountTemplate } from './whatsapp-templates.repository.js';
import {
  DuplicateTemplate,
  InvalidTemplate,
  NotACloudChannel,
  NotASandboxChannel,
  TemplateNotFound,
  TemplateSyncFailed,
} from '../whatsapp.errors.js';

/** One page of `GET /{waba-id}/message_templates`. */
export interface GraphTemplatePage {
  data: AccountTemplate[];
  paging?: { next?: string };
}

/** Message templates stored per channel. */
@Injectable()
export class TemplatesService {
  private readonly recent = new LRUCache<string, WhatsAppTemplate>({ max: 10_000, ttl: RECENT_TTL_MS });

  constructor(
    private readonly templates: WhatsAppTemplatesRepository,
    private readonly channels: ChannelsService,
    private readonly cloudApi: CloudApiWhatsAppProvider,
    private readonly invalidation: SharedInvalidation,
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
      await this.templates.upsertByNameAndLanguage(channel.workspaceId, channel.id, templates);
      this.invalidation.invalidate('templates', channel.id);
    }
    return templates.length;
  }

  /** List Templates; a `channelId` that is not a WhatsApp channel of the workspace is ChannelNotFoundError. */
  async list(workspaceId: string, query: ListTemplatesQueryDto): Promise<PagedResult<WhatsAppTemplate>> {
    if (query.channelId) await this.channels.get(workspaceId, query.channelId, 'whatsapp');
    return this.templates.page(workspaceId, query);
  }

  /**
   * The channel's APPROVED template of this name and language, or 400 WhatsApp:TemplateNotFound.
   * Served from memory for a few seconds (every send reads one); a sync is seen at once by every process.
   */
  async approved(channel: Readonly<Channel>, name: string, language: string): Promise<Readonly<WhatsAppTemplate>> {
    const key = JSON.stringify([channel.workspaceId, channel.id, name, language]);
    const recent = this.recent.get(key);
    if (recent) return recent;
    const template = await this.templates.findApproved(channel.workspaceId, channel.id, name, language);
    if (!template) throw TemplateNotFound(name, language);
    this.recent.set(key, template);
    return template;
  }
}
