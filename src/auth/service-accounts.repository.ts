import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { WorkspaceScopedRepository } from '../database/workspace-scoped.repository.js';
import { ServiceAccount } from './service-account.entity.js';

/** Service accounts of a workspace. */
@Injectable()
export class ServiceAccountsRepository extends WorkspaceScopedRepository<ServiceAccount> {
  constructor(@InjectRepository(ServiceAccount) repository: Repository<ServiceAccount>) {
    super(repository);
  }

  /** Just what the per-request status check needs: the id and when it was revoked. */
  findRevocation(workspaceId: string, id: string): Promise<Pick<ServiceAccount, 'id' | 'revokedAt'> | null> {
    return this.repository.findOne({ select: { id: true, revokedAt: true }, where: this.scope(workspaceId, { id }) });
  }

  /** Stamps the revocation once (a second revoke keeps the first time); false when there is no such account. */
  async revoke(workspaceId: string, id: string): Promise<boolean> {
    return (await this.update(workspaceId, { id }, { revokedAt: () => 'COALESCE(revoked_at, now())' })) > 0;
  }

  /** By client id alone: the token endpoint learns the workspace from the account its credentials name. */
  findUnscopedByClientId(clientId: string): Promise<ServiceAccount | null> {
    return this.unscoped('the client id is the credential that names the workspace').findOne({ where: { clientId } });
  }
}
