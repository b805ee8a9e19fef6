import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '../database/workspace-scoped.repository.js';
import { BusinessLimits } from './business-limits.entity.js';
import type { TiersSetBy } from './channel-limits.entity.js';

@Injectable()
export class BusinessLimitsRepository extends WorkspaceScopedRepository<BusinessLimits> {
  constructor(@InjectRepository(BusinessLimits) repository: Repository<BusinessLimits>) {
    super(repository);
  }

  /** The portfolio's row, or null (no limit set or adopted yet). */
  ofBusiness(workspaceId: string, businessId: string): Promise<BusinessLimits | null> {
    return this.findOne(workspaceId, { businessId });
  }

  /** Sets the portfolio's messaging limit. */
  async put(workspaceId: string, businessId: string, messagingLimit: number | null, setBy: TiersSetBy): Promise<void> {
    this.scope(workspaceId);
    await this.repository.upsert(
      { workspaceId, businessId, messagingLimit, setBy, lastModificationTime: new Date() },
      { conflictPaths: ['workspaceId', 'businessId'], skipUpdateIfNoValuesChanged: false },
    );
  }

  /** Gives the portfolio this limit unless it has one already (the first channel to join brings its own). */
  async adopt(workspaceId: string, businessId: string, messagingLimit: number | null, setBy: TiersSetBy): Promise<void> {
    this.scope(workspaceId);
    await this.repository.createQueryBuilder().insert().values({ workspaceId, businessId, messagingLimit, setBy }).orIgnore().execute();
  }
}
