import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, type Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '../database/workspace-scoped.repository.js';
import { WorkspaceUser } from './workspace-user.entity.js';

/** The users (and AI agents) of a workspace. */
@Injectable()
export class WorkspaceUsersRepository extends WorkspaceScopedRepository<WorkspaceUser> {
  constructor(@InjectRepository(WorkspaceUser) repository: Repository<WorkspaceUser>) {
    super(repository);
  }

  /** Oldest first. */
  list(workspaceId: string): Promise<WorkspaceUser[]> {
    return this.selectEntities(workspaceId, 'ORDER BY creation_time, id');
  }

  findByUserIds(workspaceId: string, userIds: readonly string[]): Promise<WorkspaceUser[]> {
    if (userIds.length === 0) return Promise.resolve([]);
    return this.find(workspaceId, { userId: In([...userIds]) });
  }
}
