import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { newId } from '../../common/id.js';
import type { PagedResult } from '../../common/paging/paged-result.js';
import { pageWithTotal } from '../../common/paging/page-with-total.js';
import { likePattern } from '../../database/sql-helpers.js';
import { WorkspaceScopedRepository } from '../../database/workspace-scoped.repository.js';
import type { ListTemplatesQueryDto } from '../dto/template.dto.js';
import { WhatsAppTemplate, type TemplateComponent } from './whatsapp-template.entity.js';

/** A template as a WhatsApp Business Account lists it. */
export interface AccountTemplate {
  name: string;
  language: string;
  category: string;
  status: string;
  components: TemplateComponent[];
  /** Meta's template id. */
  id?: string;
  /** `quality_score: { score }` when Meta lists it. */
  quality_score?: { score?: string };
}

/** What a lifecycle webhook changes on a stored template. */
export interface TemplateChange {
  status?: string;
  category?: string;
  qualityScore?: string | null;
  statusReason?: string | null;
}

@Injectable()
export class WhatsAppTemplatesRepository extends WorkspaceScopedRepository<WhatsAppTemplate> {
  constructor(@InjectRepository(WhatsAppTemplate) repository: Repository<WhatsAppTemplate>) {
    super(repository);
  }

  /** A page of the workspace's templates matching the filters, by name and language. */
  page(workspaceId: string, query: ListTemplatesQueryDto): Promise<PagedResult<WhatsAppTemplate>> {
    const qb = this.queryBuilder(workspaceId, 't');
    if (query.channelId) qb.andWhere('t.channel_id = :channelId', { channelId: query.channelId });
    if (query.name) qb.andWhere('t.name ILIKE :name', { name: likePattern(query.name) });
    if (query.language) qb.andWhere('t.language = :language', { language: query.language });
    if (query.status) qb.andWhere('t.status = :status', { status: query.status.toUpperCase() });
    if (query.category) qb.andWhere('t.category = :category', { category: query.category.toUpperCase() });
    return pageWithTotal(qb.orderBy('t.name', 'ASC').addOrderBy('t.language', 'ASC'), query.skipCount, query.maxResultCount);
  }

  /** The channel's template of this name and language, whatever its status. */
  findByNameAndLanguage(workspaceId: string, channelId: string, name: string, language: string): Promise<WhatsAppTemplate | null> {
    return this.findOne(workspaceId, { channelId, name, language });
  }

  /** Every language of a name on the channel. */
  findByName(workspaceId: string, channelId: string, name: string): Promise<WhatsAppTemplate[]> {
    return this.find(workspaceId, { channelId, name }, { order: { language: 'ASC' } });
  }

  /**
   * The template a lifecycle webhook names, locked for its change: by name and language, else by
   * Meta's id (a template created elsewhere and synced carries it too).
   */
  async lockForChange(
    workspaceId: string,
    channelId: string,
    name: string | null,
    language: string | null,
    providerTemplateId: string | null,
  ): Promise<WhatsAppTemplate | null> {
    const qb = this.queryBuilder(workspaceId, 't').andWhere('t.channel_id = :channelId', { channelId }).setLock('pessimistic_write');
    if (name && language) {
      const found = await qb.clone().andWhere('t.name = :name AND t.language = :language', { name, language }).getOne();
      if (found) return found;
    }
    if (!providerTemplateId) return null;
    return qb.andWhere('t.provider_template_id = :providerTemplateId', { providerTemplateId }).getOne();
  }

  /** Applies a lifecycle change to one template. */
  async applyChange(workspaceId: string, id: string, change: TemplateChange): Promise<void> {
    await this.update(workspaceId, { id }, change);
  }

  /** Deletes every language of a name on the channel; how many. */
  async deleteByName(workspaceId: string, channelId: string, name: string): Promise<number> {
    return this.delete(workspaceId, { channelId, name });
  }

  /** Every template of the channel. */
  findByChannel(workspaceId: string, channelId: string): Promise<WhatsAppTemplate[]> {
    return this.find(workspaceId, { channelId });
  }

  /**
   * Upserts a channel's templates matched by name and language: a new one is inserted as the account
   * lists it; a stored one keeps its id, status and category (those change through the lifecycle,
   * see TemplatesService.syncForOperator) and takes the account's components, Meta's id and quality
   * score (`qualityScores` gives the score to keep where the account listed none).
   */
  async upsertByNameAndLanguage(
    workspaceId: string,
    channelId: string,
    templates: AccountTemplate[],
    qualityScores: (template: AccountTemplate) => string | null,
  ): Promise<void> {
    this.scope(workspaceId);
    if (templates.length === 0) return;
    await this.repository
      .createQueryBuilder()
      .insert()
      .values(
        templates.map((t) => ({
          id: newId(),
          workspaceId,
          channelId,
          name: t.name,
          language: t.language,
          category: t.category,
          status: t.status,
          components: t.components as never,
          providerTemplateId: t.id ?? null,
          qualityScore: qualityScores(t),
        })),
      )
      .orUpdate(['components', 'provider_template_id', 'quality_score'], ['workspace_id', 'channel_id', 'name', 'language'])
      .execute();
  }
}
