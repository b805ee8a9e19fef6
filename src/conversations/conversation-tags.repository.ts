import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { insertIgnoring } from '../database/sql-helpers.js';
import { WorkspaceScopedRepository } from '../database/workspace-scoped.repository.js';
import { ConversationTag } from './conversation-tag.entity.js';

@Injectable()
export class ConversationTagsRepository extends WorkspaceScopedRepository<ConversationTag> {
  constructor(@InjectRepository(ConversationTag) repository: Repository<ConversationTag>) {
    super(repository);
  }

  /** Puts the tags on the conversation; a tag it already carries stays as it is (concurrent adds all survive). */
  async add(workspaceId: string, conversationId: string, tagIds: readonly string[]): Promise<void> {
    this.scope(workspaceId);
    await insertIgnoring(
      this.manager,
      ConversationTag,
      tagIds.map((tagId) => ({ workspaceId, conversationId, tagId })),
      'tagId',
    );
  }

  /** The tags on these conversations, each link with its tag, by tag name. */
  withTags(workspaceId: string, conversationIds: readonly string[]): Promise<ConversationTag[]> {
    if (conversationIds.length === 0) return Promise.resolve([]);
    return this.queryBuilder(workspaceId, 'ct')
      .innerJoinAndSelect('ct.tag', 't')
      .andWhere('ct.conversation_id IN (:...ids)', { ids: conversationIds })
      .orderBy('t.name', 'ASC')
      .getMany();
  }
}
