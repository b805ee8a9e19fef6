import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, LessThan, type Repository } from 'typeorm';
import { insertIgnoring } from '../../database/sql-helpers.js';
import { WorkspaceScopedRepository } from '../../database/workspace-scoped.repository.js';
import { IdempotencyRecord } from './idempotency-record.entity.js';

/** A request's claim of an `Idempotency-Key`: the key, and the token its in-flight record carries. */
export interface KeyClaim {
  key: string;
  token: string;
}

/** The stored first responses per workspace and `Idempotency-Key`. */
@Injectable()
export class IdempotencyRecordsRepository extends WorkspaceScopedRepository<IdempotencyRecord> {
  constructor(@InjectRepository(IdempotencyRecord) repository: Repository<IdempotencyRecord>) {
    super(repository);
  }

  /** Inserts the in-flight record of `key`, claimed under `claimToken`, unless the key is already taken; true when this call inserted it. */
  async insertIfAbsent(workspaceId: string, key: string, requestHash: string, expiresAt: Date, claimToken: string): Promise<boolean> {
    this.scope(workspaceId);
    const record = { workspaceId, key, requestHash, expiresAt, claimToken };
    return (await insertIgnoring(this.manager, IdempotencyRecord, [record], 'key')).length === 1;
  }

  /**
   * Stores the response of the key's request while it is in flight under the request's own claim
   * (this repository bound to the transaction of the request's change); false when the record is no
   * longer in flight, or is another request's claim now.
   */
  async storeIfInFlight(workspaceId: string, claim: KeyClaim, status: number, body: unknown): Promise<boolean> {
    const inFlight = { key: claim.key, claimToken: claim.token, responseStatus: IsNull() };
    return (await this.update(workspaceId, inFlight, { responseStatus: status, responseBody: body as object })) > 0;
  }

  /** Deletes the key's record if it is still in flight under this claim (the request failed); the number deleted. */
  deleteOwnInFlight(workspaceId: string, claim: KeyClaim): Promise<number> {
    return this.delete(workspaceId, { key: claim.key, claimToken: claim.token, responseStatus: IsNull() });
  }

  /**
   * Deletes the key's record if it is still in flight and was claimed before `createdBefore` (a
   * stale claim, not one made again since); the number deleted. By time, not by the `created_at`
   * read earlier: JavaScript's milliseconds never equal PostgreSQL's microseconds.
   */
  deleteStaleInFlight(workspaceId: string, key: string, createdBefore: Date): Promise<number> {
    return this.delete(workspaceId, { key, responseStatus: IsNull(), createdAt: LessThan(createdBefore) });
  }

  /** Deletes every workspace's records that expired before `now` (the hourly maintenance job); the number deleted. */
  async deleteUnscopedExpired(now: Date): Promise<number> {
    const result = await this.unscoped('maintenance purges expired keys of every workspace').delete({ expiresAt: LessThan(now) });
    return result.affected ?? 0;
  }
}
