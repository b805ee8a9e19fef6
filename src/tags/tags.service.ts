import { Injectable } from '@nestjs/common';
import { DataSource, In, Repository } from 'typeorm';
import { newId } from '../common/id.js';
import type { PagedResult } from '../common/paging/paged-result.js';
import { parseSorting } from '../common/paging/sorting.js';
import { isUniqueViolation } from '../database/pg-errors.js';
import type { CreateTagDto, ListTagsQueryDto, UpdateTagDto } from './dto/tag.dto.js';
import { Tag } from './tag.entity.js';
import { TagInUse, TagNameTaken, TagNotFound } from './tags.errors.js';

const SORTABLE = { name: 't.name', creationtime: 't.creation_time' };

/** Tags of a workspace; every lookup is by workspace and id. */
@Injectable()
export class TagsService {
  private readonly tags: Repository<Tag>;

  constructor(private readonly dataSource: DataSource) {
    this.tags = dataSource.getRepository(Tag);
  }

  async list(workspaceId: string, query: ListTagsQueryDto): Promise<PagedResult<Tag>> {
    const sort = parseSorting(query.sorting, SORTABLE, { column: 't.name', direction: 'ASC' });
    const [items, totalCount] = await this.tags
      .createQueryBuilder('t')
      .where('t.workspace_id = :workspaceId', { workspaceId })
      .orderBy(sort.column, sort.direction)
      .addOrderBy('t.id', sort.direction)
      .skip(query.skipCount)
      .take(query.maxResultCount)
      .getManyAndCount();
    return { totalCount, items };
  }

  async get(workspaceId: string, id: string): Promise<Tag> {
    const tag = await this.tags.findOne({ where: { id, workspaceId } });
    if (!tag) throw TagNotFound(id);
    return tag;
  }

  /** The tags with these ids, all of this workspace, or 404 naming the first one that is not. */
  async getMany(workspaceId: string, ids: string[]): Promise<Tag[]> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return [];
    const found = await this.tags.find({ where: { workspaceId, id: In(unique) } });
    const missing = unique.find((id) => !found.some((tag) => tag.id === id));
    if (missing) throw TagNotFound(missing);
    return found;
  }

  async create(workspaceId: string, input: CreateTagDto): Promise<Tag> {
    const name = input.name.trim();
    return this.saveUnique(
      this.tags.create({
        id: newId(),
        workspaceId,
        name,
        normalizedName: name.toLowerCase(),
        icon: input.icon ?? null,
        description: input.description ?? null,
        isPinned: input.isPinned ?? false,
      }),
    );
  }

  async update(workspaceId: string, id: string, input: UpdateTagDto): Promise<Tag> {
    const tag = await this.get(workspaceId, id);
    if (input.name !== undefined) {
      tag.name = input.name.trim();
      tag.normalizedName = tag.name.toLowerCase();
    }
    if (input.icon !== undefined) tag.icon = input.icon;
    if (input.description !== undefined) tag.description = input.description;
    if (input.isPinned !== undefined) tag.isPinned = input.isPinned;
    return this.saveUnique(tag);
  }

  /** Deletes an unused tag; a tag on any conversation is a 409 (the foreign key enforces it under concurrency too). */
  async remove(workspaceId: string, id: string): Promise<void> {
    const tag = await this.get(workspaceId, id);
    const [{ count }] = (await this.dataSource.query(
      'SELECT count(*)::int AS count FROM conversation_tags WHERE workspace_id = $1 AND tag_id = $2',
      [workspaceId, id],
    )) as Array<{ count: number }>;
    if (count > 0) throw TagInUse(tag.name, count);
    try {
      await this.tags.delete({ id, workspaceId });
    } catch (err) {
      if ((err as { driverError?: { code?: string } }).driverError?.code === '23503') throw TagInUse(tag.name, 1);
      throw err;
    }
  }

  private async saveUnique(tag: Tag): Promise<Tag> {
    try {
      return await this.tags.save(tag);
    } catch (err) {
      if (isUniqueViolation(err)) throw TagNameTaken(tag.name);
      throw err;
    }
  }
}
