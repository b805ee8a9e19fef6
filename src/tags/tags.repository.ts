import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import type { PagedResult } from '../common/paging/paged-result.js';
import type { SortedPagedRequestDto } from '../common/paging/paged-request.dto.js';
import { pageWithTotal } from '../common/paging/page-with-total.js';
import { parseSorting } from '../common/paging/sorting.js';
import { WorkspaceScopedRepository } from '../database/workspace-scoped.repository.js';
import { Tag } from './tag.entity.js';

const SORTABLE = { name: 't.name', creationtime: 't.creation_time' };

@Injectable()
export class TagsRepository extends WorkspaceScopedRepository<Tag> {
  constructor(@InjectRepository(Tag) repository: Repository<Tag>) {
    super(repository);
  }

  /** A page of the workspace's tags, by name unless `paging.sorting` says otherwise (the id breaks ties). */
  page(workspaceId: string, paging: SortedPagedRequestDto): Promise<PagedResult<Tag>> {
    const sort = parseSorting(paging.sorting, SORTABLE, { column: 't.name', direction: 'ASC' });
    const qb = this.queryBuilder(workspaceId, 't').orderBy(sort.column, sort.direction).addOrderBy('t.id', sort.direction);
    return pageWithTotal(qb, paging.skipCount, paging.maxResultCount);
  }

  /** How many conversations carry the tag (conversation_tags references tags, so the count is the tag's). */
  async conversationCount(workspaceId: string, tagId: string): Promise<number> {
    const [{ count }] = await this.sql<{ count: number }>(
      workspaceId,
      'SELECT count(*)::int AS count FROM conversation_tags WHERE workspace_id = $1 AND tag_id = $2',
      [tagId],
    );
    return count;
  }
}
