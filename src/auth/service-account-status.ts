import { Injectable } from '@nestjs/common';
import { SharedInvalidation } from '../common/cache/shared-invalidation.js';
import { ServiceAccountsRepository } from './service-accounts.repository.js';

/**
 * How long an answer is reused. A revocation reaches every replica at once through Redis; this bounds
 * it when that message is lost.
 */
const CACHE_MS = 30_000;

/** Answers "is this service account still active?" for every request, from a short cache. */
@Injectable()
export class ServiceAccountStatus {
  private readonly cache = new Map<string, { active: boolean; until: number }>();

  constructor(
    private readonly accounts: ServiceAccountsRepository,
    private readonly invalidation: SharedInvalidation,
  ) {
    invalidation.on('service-account', (key) => this.cache.delete(key));
  }

  async isActive(serviceAccountId: string, workspaceId: string): Promise<boolean> {
    const key = `${workspaceId}:${serviceAccountId}`;
    const hit = this.cache.get(key);
    if (hit && hit.until > Date.now()) return hit.active;
    const account = await this.accounts.findRevocation(workspaceId, serviceAccountId);
    const active = !!account && account.revokedAt === null;
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(key, { active, until: Date.now() + CACHE_MS });
    return active;
  }

  /** Forget a revoked account at once, in this process and every other. */
  forget(serviceAccountId: string, workspaceId: string): void {
    this.invalidation.invalidate('service-account', `${workspaceId}:${serviceAccountId}`);
  }
}
