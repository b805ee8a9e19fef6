import { Injectable } from '@nestjs/common';
import { newId } from '../common/id.js';
import type { PagedResult } from '../common/paging/paged-result.js';
import { pgError } from '../database/pg-errors.js';
import type { CreateTagDto, ListTagsQueryDto, UpdateTagDto } from './dto/tag.dto.js';
import type { Tag } from './tag.entity.js';
import { TagsRepository } from './tags.repository.js';
import { TagInUse, TagNameTaken, TagNotFound } from './tags.errors.js';

/** Tags of a workspace; every lookup is by workspace and id. */
@Injectable()
export class TagsService {
  constructor(private readonly tags: TagsRepository) {}

  list(workspaceId: string, query: ListTagsQueryDto): Promise<PagedResult<Tag>> {
    return this.tags.page(workspaceId, query);
  }

  async get(workspaceId: string, id: string): Promise<Tag> {
    const tag = await this.tags.findById(workspaceId, id);
    if (!tag) throw TagNotFound(id);
    return tag;
  }

  /** The tags with these ids, all of this workspace, or 404 naming the first one that is not. */
  async getMany(workspaceId: string, ids: string[]): Promise<Tag[]> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return [];
    const found = await this.tags.findByIds(workspaceId, unique);
    const missing = unique.find((id) => !found.some((tag) => tag.id === id));
    if (missing) throw TagNotFound(missing);
    return found;
  }

  async create(workspaceId: string, input: CreateTagDto): Promise<Tag> {
    const name = input.name.trim();
    return this.saveUnique(
      this.tags.create(workspaceId, {
        id: newId(),
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
    const count = await this.tags.conversationCount(workspaceId, id);
    if (count > 0) throw TagInUse(tag.name, count);
    try {
      await this.tags.delete(workspaceId, { id });
    } catch (err) {
      if (pgError.is(err, 'foreign-key')) throw TagInUse(tag.name, 1);
      throw err;
    }
  }

  private async saveUnique(tag: Tag): Promise<Tag> {
    try {
      return await this.tags.save(tag.workspaceId, tag);
    } catch (err) {
      if (pgError.is(err, 'unique')) throw TagNameTaken(tag.name);
      throw err;
    }
  }
}
