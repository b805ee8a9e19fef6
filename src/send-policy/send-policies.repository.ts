import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { QueryDeepPartialEntity, Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '../database/workspace-scoped.repository.js';
import { SendPolicy, type SendPolicyParts } from './send-policy.entity.js';

@Injectable()
export class SendPoliciesRepository extends WorkspaceScopedRepository<SendPolicy> {
  constructor(@InjectRepository(SendPolicy) repository: Repository<SendPolicy>) {
    super(repository);
  }

  /** The workspace's policy row, or null (all defaults). */
  ofWorkspace(workspaceId: string): Promise<SendPolicy | null> {
    return this.findOne(workspaceId, {});
  }

  /** Writes the parts given (a part left out keeps its value; a new row has the defaults for it). */
  async put(workspaceId: string, parts: SendPolicyParts): Promise<void> {
    this.scope(workspaceId);
    const row = { workspaceId, ...parts, lastModificationTime: new Date() } as QueryDeepPartialEntity<SendPolicy>;
    await this.repository.upsert(row, { conflictPaths: ['workspaceId'], skipUpdateIfNoValuesChanged: false });
  }
}
