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
    return pageWithTotal(qb.orderBy('t.name', 'ASC').addOrderBy('t.language', 'ASC'), query.skipCount, query.maxResultCount);
  }

  /** The channel's APPROVED template of this name and language. */
  findApproved(workspaceId: string, channelId: string, name: string, language: string): Promise<WhatsAppTemplate | null> {
    return this.findOne(workspaceId, { channelId, name, language, status: 'APPROVED' });
  }

  /**
   * Upserts a channel's templates matched by name and language: a template keeps its id across
   * syncs; category, status and components follow the account.
   */
  async upsertByNameAndLanguage(workspaceId: string, channelId: string, templates: AccountTemplate[]): Promise<void> {
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
        })),
      )
      .orUpdate(['category', 'status', 'components'], ['workspace_id', 'channel_id', 'name', 'language'])
      .execute();
  }
}
