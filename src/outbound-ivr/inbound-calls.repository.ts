import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { insertIgnoring } from '../database/sql-helpers.js';
import { MissingWorkspaceError, WorkspaceScopedRepository } from '../database/workspace-scoped.repository.js';
import { InboundCall } from './inbound-call.entity.js';

/** Calls placed to a workspace's numbers. */
@Injectable()
export class InboundCallsRepository extends WorkspaceScopedRepository<InboundCall> {
  constructor(@InjectRepository(InboundCall) repository: Repository<InboundCall>) {
    super(repository);
  }

  /** Records a finished call once: false when its provider call id was recorded before (a repeated callback). */
  async insertIgnoring(workspaceId: string, call: InboundCall): Promise<boolean> {
    this.scope(workspaceId);
    if (call.workspaceId !== workspaceId) throw new MissingWorkspaceError('InboundCall of another workspace');
    return (await insertIgnoring(this.manager, InboundCall, [call])).length > 0;
  }
}
