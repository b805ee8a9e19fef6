import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { newId } from '../common/id.js';
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
    const ids = entries.map(() => newId());
    const values: unknown[] = [];
    const tuples = entries.map((entry, i) => {
      values.push(ids[i], entry.workspaceId ?? null, QUEUE_OF_JOB[entry.jobName], entry.jobName, entry.payload, entry.runAt ?? null);
      const n = i * 6;
      return `($${n + 1}, $${n + 2}, $${n + 3}, $${n + 4}, $${n + 5}, $${n + 6})`;
    });
    await manager.query(
      `INSERT INTO outbox_messages (id, workspace_id, queue, job_name, payload, run_at) VALUES ${tuples.join(', ')}`,
      values,
    );
    return ids;
  }

  /** Call after the transaction committed: dispatches without waiting for the next poll. */
  afterCommit(): void {
    this.relay.kick();
  }
}
