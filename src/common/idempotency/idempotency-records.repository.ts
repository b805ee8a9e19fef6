import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThan, type Repository } from 'typeorm';
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

  /** Deletes every workspace's records that expired before `now` (the hourly maintenance job); the number deleted. */
  async deleteUnscopedExpired(now: Date): Promise<number> {
    const result = await this.unscoped('maintenance purges expired keys of every workspace').delete({ expiresAt: LessThan(now) });
    return result.affected ?? 0;
  }
}
