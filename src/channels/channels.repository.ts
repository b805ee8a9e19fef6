import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, type Repository } from 'typeorm';
import { pageWithTotal } from '../common/paging/page-with-total.js';
import type { PagedResult } from '../common/paging/paged-result.js';
import { MissingWorkspaceError, WorkspaceScopedRepository } from '../database/workspace-scoped.repository.js';
import { Channel } from './channel.entity.js';

/** Channels of a workspace; deleted ones are soft-deleted and hidden unless a method says otherwise. */
@Injectable()
export class ChannelsRepository extends WorkspaceScopedRepository<Channel> {
  constructor(@InjectRepository(Channel) repository: Repository<Channel>) {
    super(repository);
  }

  /** A page of the workspace's channels, oldest first. */
  page(workspaceId: string, skip: number, take: number): Promise<PagedResult<Channel>> {
    const qb = this.queryBuilder(workspaceId, 'c').orderBy('c.creation_time', 'ASC').addOrderBy('c.id', 'ASC');
    return pageWithTotal(qb, skip, take);
  }

  /** The channel even after it was deleted. */
  findByIdIncludingDeleted(workspaceId: string, id: string): Promise<Channel | null> {
    return this.repository.findOne({ where: this.scope(workspaceId, { id }), withDeleted: true });
  }

  /** The channels of these ids, deleted ones included (what older records point to). */
  findByIdsIncludingDeleted(workspaceId: string, ids: readonly string[]): Promise<Channel[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.repository.find({ where: this.scope(workspaceId, { id: In([...ids]) }), withDeleted: true });
  }

  /** Soft-deletes a channel of this workspace. */
  async softRemove(workspaceId: string, channel: Channel): Promise<void> {
    this.scope(workspaceId);
    if (channel.workspaceId !== workspaceId) throw new MissingWorkspaceError('Channel of another workspace');
    await this.repository.softRemove(channel);
  }

  /** By id alone: operators' routes (authenticated by the admin key) name a channel without its workspace. */
  findUnscopedForOperator(id: string): Promise<Channel | null> {
    return this.unscoped('operator routes name a channel by id alone').findOne({ where: { id } });
  }

  /** By id alone: provider callbacks carry no token; the caller then checks the provider's signature with the channel's secret. */
  findUnscopedForProviderCallback(id: string): Promise<Channel | null> {
    return this.unscoped('provider callbacks are authenticated by their signature, checked against this channel').findOne({
      where: { id },
    });
  }
}
