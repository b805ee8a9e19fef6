import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { QueryDeepPartialEntity, Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '../database/workspace-scoped.repository.js';
import { CallIntelligenceSettings } from './call-intelligence.entity.js';

export type CallIntelligenceRow = Omit<CallIntelligenceSettings, 'workspaceId' | 'lastModificationTime'>;

@Injectable()
export class CallIntelligenceRepository extends WorkspaceScopedRepository<CallIntelligenceSettings> {
  constructor(@InjectRepository(CallIntelligenceSettings) repository: Repository<CallIntelligenceSettings>) {
    super(repository);
  }

  /** The workspace's settings, or null (no providers). */
  ofWorkspace(workspaceId: string): Promise<CallIntelligenceSettings | null> {
    return this.findOne(workspaceId, {});
  }

  /** Replaces the workspace's settings whole. */
  async put(workspaceId: string, row: CallIntelligenceRow): Promise<void> {
    this.scope(workspaceId);
    const values = { workspaceId, ...row, lastModificationTime: new Date() } as QueryDeepPartialEntity<CallIntelligenceSettings>;
    await this.repository.upsert(values, { conflictPaths: ['workspaceId'], skipUpdateIfNoValuesChanged: false });
  }
}
