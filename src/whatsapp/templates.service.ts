import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { DataSource, ILike, Repository } from 'typeorm';
import { RECENT_TTL_MS } from '../channels/channels.service.js';
import type { Channel } from '../channels/channel.entity.js';
import { ValidationError } from '../common/errors/domain-error.js';
import { newId } from '../common/id.js';
import type { PagedResult } from '../common/paging/paged-result.js';
import { isUniqueViolation } from '../database/pg-errors.js';
import { ConflictError } from '../common/errors/domain-error.js';
import type { ListTemplatesQueryDto } from './dto/template.dto.js';
import { toTemplateComponents, type TemplateDefinitionDto } from './dto/template-definition.dto.js';
import { WhatsAppTemplate, type TemplateComponent } from './whatsapp-template.entity.js';

/** One page of `GET /{waba-id}/message_templates`. */
export interface GraphTemplatePage {
  data: Array<{ name: string; language: string; category: string; status: string; components: TemplateComponent[] }>;
  paging?: { next?: string };
}
import { TemplateNotFound } from './whatsapp.errors.js';

/** Message templates stored per channel. */
@Injectable()
export class TemplatesService {
  private readonly templates: Repository<WhatsAppTemplate>;
  private readonly recent = new LRUCache<string, WhatsAppTemplate>({ max: 10_000, ttl: RECENT_TTL_MS });

  constructor(dataSource: DataSource) {
    this.templates = dataSource.getRepository(WhatsAppTemplate);
  }

  /** Admin: a template for a sandbox channel (cloud-api channels get theirs from the WhatsApp Business Account). */
  async create(channel: Channel, input: TemplateDefinitionDto): Promise<WhatsAppTemplate> {
    if (channel.whatsAppProvider !== 'sandbox') {
      throw new ValidationError(
        'WhatsApp:NotASandboxChannel',
        'Templates are created by hand only on sandbox channels; cloud-api channels sync them.',
      );
    }
    if (!input.components.some((c) => c.type === 'BODY' && typeof c.text === 'string')) {
      throw new ValidationError('WhatsApp:InvalidTemplate', 'A template needs a BODY component with text.');
    }
    try {
      return await this.templates.save({
        id: newId(),
        workspaceId: channel.workspaceId,
        channelId: channel.id,
        ...input,
        components: toTemplateComponents(input.components),
      });
    } catch (err) {
      if (isUniqueViolation(err))
        throw new ConflictError(
          'WhatsApp:DuplicateTemplate',
          `Template '${input.name}' (${input.language}) already exists on this channel.`,
        );
      throw err;
    }
  }

  /**
   * Cloud API channels: pulls every template of the WhatsApp Business Account
   * (`GET /{waba-id}/message_templates`, following the cursor) and upserts them. Returns how many.
   */
  async sync(channel: Channel, fetchPage: (url: string) => Promise<GraphTemplatePage>, firstUrl: string): Promise<number> {
    if (channel.whatsAppProvider !== 'cloud-api') {
      throw new ValidationError(
        'WhatsApp:NotACloudChannel',
        'Only cloud-api channels sync templates from their WhatsApp Business Account.',
      );
    }
    const templates: GraphTemplatePage['data'] = [];
    for (let url: string | undefined = firstUrl, pages = 0; url && pages < 100; pages++) {
      const page = await fetchPage(url);
      templates.push(...page.data);
      url = page.paging?.next;
    }
    if (templates.length > 0) {
      // Matched by name and language: a template keeps its id across syncs; category, status and components follow the account.
      await this.templates
        .createQueryBuilder()
        .insert()
        .values(
          templates.map((t) => ({
            id: newId(),
            workspaceId: channel.workspaceId,
            channelId: channel.id,
            name: t.name,
            language: t.language,
            category: t.category,
            status: t.status,
            components: t.components as never,
          })),
        )
        .orUpdate(['category', 'status', 'components'], ['workspace_id', 'channel_id', 'name', 'language'])
        .execute();
      this.recent.clear();
    }
    return templates.length;
  }

  async list(workspaceId: string, query: ListTemplatesQueryDto): Promise<PagedResult<WhatsAppTemplate>> {
    const [items, totalCount] = await this.templates.findAndCount({
      where: {
        workspaceId,
        ...(query.channelId ? { channelId: query.channelId } : {}),
        ...(query.name ? { name: ILike(`%${query.name.replace(/[\\%_]/g, '\\$&')}%`) } : {}),
        ...(query.language ? { language: query.language } : {}),
        ...(query.status ? { status: query.status.toUpperCase() } : {}),
      },
      order: { name: 'ASC', language: 'ASC' },
      skip: query.skipCount,
      take: query.maxResultCount,
    });
    return { totalCount, items };
  }

  /**
   * The channel's APPROVED template of this name and language, or 400 WhatsApp:TemplateNotFound.
   * Served from memory for a few seconds (every send reads one); a sync through this process is seen at once.
   */
  async approved(channel: Readonly<Channel>, name: string, language: string): Promise<Readonly<WhatsAppTemplate>> {
    const key = JSON.stringify([channel.workspaceId, channel.id, name, language]);
    const recent = this.recent.get(key);
    if (recent) return recent;
    const template = await this.templates.findOne({
      where: { workspaceId: channel.workspaceId, channelId: channel.id, name, language, status: 'APPROVED' },
    });
    if (!template) throw TemplateNotFound(name, language);
    this.recent.set(key, template);
    return template;
  }
}
