import { Injectable } from '@nestjs/common';
import { ServiceAccountsRepository } from './service-accounts.repository.js';

/** How long an answer is reused; revocation takes effect on every replica within this time. */
const CACHE_MS = 30_000;

/** Answers "is this service account still active?" for every request, from a short cache. */
@Injectable()
export class ServiceAccountStatus {
  private readonly cache = new Map<string, { active: boolean; until: number }>();

  constructor(private readonly accounts: ServiceAccountsRepository) {}

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

  /** Forget a revoked account at once in this process (other replicas follow within {@link CACHE_MS}). */
  forget(serviceAccountId: string, workspaceId: string): void {
    this.cache.delete(`${workspaceId}:${serviceAccountId}`);
  }
}
