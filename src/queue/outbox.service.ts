import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity.js';
import { newId } from '../common/id.js';
import { OutboxMessage } from './outbox-message.entity.js';
import { JobName, QUEUE_OF_JOB } from './queue-names.js';
import { OutboxRelay } from './outbox.relay.js';

export interface OutboxEntry {
  jobName: JobName;
  payload: Record<string, unknown>;
  workspaceId?: string | null;
  runAt?: Date | null;
}

/**
 * The one way request code hands work to workers: `enqueue` inside the transaction that makes
 * the change, then `afterCommit` (or rely on the relay's polling) to push it to Bull promptly.
 */
@Injectable()
export class Outbox {
  constructor(private readonly relay: OutboxRelay) {}

  /** Writes the jobs with `manager` (the caller's transaction). Returns their ids, which are the Bull job ids. */
  async enqueue(manager: EntityManager, entries: OutboxEntry[]): Promise<string[]> {
    if (entries.length === 0) return [];
    const rows = entries.map((entry) => ({
      id: newId(),
      workspaceId: entry.workspaceId ?? null,
      queue: QUEUE_OF_JOB[entry.jobName],
      jobName: entry.jobName,
      payload: entry.payload,
      runAt: entry.runAt ?? null,
    }));
    await manager
      .createQueryBuilder()
      .insert()
      .into(OutboxMessage)
      .values(rows as QueryDeepPartialEntity<OutboxMessage>[])
      .execute();
    return rows.map((row) => row.id);
  }

  /** Call after the transaction committed: dispatches without waiting for the next poll. */
  afterCommit(): void {
    this.relay.kick();
  }
}
