import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '../database/workspace-scoped.repository.js';
import { WhatsAppCallPermission } from './whatsapp-call-permission.entity.js';

@Injectable()
export class WhatsAppCallPermissionsRepository extends WorkspaceScopedRepository<WhatsAppCallPermission> {
  constructor(@InjectRepository(WhatsAppCallPermission) repository: Repository<WhatsAppCallPermission>) {
    super(repository);
  }

  /** Every number's permission row for one user (the consent view picks among them). */
  ofUser(workspaceId: string, userNumber: string): Promise<WhatsAppCallPermission[]> {
    return this.find(workspaceId, { userNumber });
  }

  /** The row of one number and user, locked for the caller's transaction; created empty first if missing. */
  async lockOrCreate(workspaceId: string, channelId: string, userNumber: string): Promise<WhatsAppCallPermission> {
    this.scope(workspaceId);
    await this.repository.createQueryBuilder().insert().values({ workspaceId, channelId, userNumber }).orIgnore().execute();
    return (await this.findOne(workspaceId, { channelId, userNumber }, { lock: true }))!;
  }
}
