import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { hashSecret } from '../common/crypto/password-hash.js';
import { NotFoundError } from '../common/errors/domain-error.js';
import { newId } from '../common/id.js';
import { ServiceAccountStatus } from './service-account-status.js';
import { ServiceAccountsRepository } from './service-accounts.repository.js';

export interface CreatedServiceAccount {
  id: string;
  name: string;
  clientId: string;
  /** Shown once; only its hash is stored. */
  clientSecret: string;
}

@Injectable()
export class ServiceAccountsService {
  constructor(
    private readonly accounts: ServiceAccountsRepository,
    private readonly status: ServiceAccountStatus,
  ) {}

  async create(workspaceId: string, name: string): Promise<CreatedServiceAccount> {
    const clientId = `sa_${randomBytes(12).toString('hex')}`;
    const clientSecret = randomBytes(32).toString('base64url');
    const account = await this.accounts.save(
      workspaceId,
      this.accounts.create(workspaceId, { id: newId(), name, clientId, clientSecretHash: await hashSecret(clientSecret), revokedAt: null }),
    );
    return { id: account.id, name: account.name, clientId, clientSecret };
  }

  /** Revokes the account: no new tokens, and its tokens stop working within a minute everywhere. */
  async revoke(workspaceId: string, id: string): Promise<void> {
    if (!(await this.accounts.revoke(workspaceId, id)))
      throw new NotFoundError('ServiceAccounts:NotFound', `Service account '${id}' was not found.`);
    this.status.forget(id, workspaceId);
  }
}
