import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, LessThan, type Repository } from 'typeorm';
import { insertIgnoring } from '../../database/sql-helpers.js';
import { WorkspaceScopedRepository } from '../../database/workspace-scoped.repository.js';
import { IdempotencyRecord } from './idempotency-record.entity.js';

/** The stored first responses per workspace and `Idempotency-Key`. */
@Injectable()
export class IdempotencyRecordsRepository extends WorkspaceScopedRepository<IdempotencyRecord> {
  constructor(@InjectRepository(IdempotencyRecord) repository: Repository<IdempotencyRecord>) {
    super(repository);
  }

  /** Inserts the in-flight record of `key` unless the key is already taken; true when this call inserted it. */
  async insertIfAbsent(workspaceId: string, key: string, requestHash: string, expiresAt: Date): Promise<boolean> {
    this.scope(workspaceId);
    return (await insertIgnoring(this.manager, IdempotencyRecord, [{ workspaceId, key, requestHash, expiresAt }], 'key')).length === 1;
  }

  /**
   * Stores the response of the key's request while it is in flight (this repository bound to the
   * transaction of the request's change); false when the record is no longer in flight.
   */
  async storeIfInFlight(workspaceId: string, key: string, status: number, body: unknown): Promise<boolean> {
    return (
      (await this.update(workspaceId, { key, responseStatus: IsNull() }, { responseStatus: status, responseBody: body as object })) > 0
    );
  }

  /**
   * Deletes the key's record if it is still in flight (and, with `createdBefore`, was claimed
   * before then: a stale claim, not one made again since); the number deleted. By time, not by the
   * `created_at` read earlier: JavaScript's milliseconds never equal PostgreSQL's microseconds.
   */
  deleteInFlight(workspaceId: string, key: string, createdBefore?: Date): Promise<number> {
    return this.delete(workspaceId, { key, responseStatus: IsNull(), ...(createdBefore ? { createdAt: LessThan(createdBefore) } : {}) });
  }

  /** Deletes every workspace's records that expired before `now` (the hourly maintenance job); the number deleted. */
  async deleteUnscopedExpired(now: Date): Promise<number> {
    const result = await this.unscoped('maintenance purges expired keys of every workspace').delete({ expiresAt: LessThan(now) });
    return result.affected ?? 0;
  }
}
