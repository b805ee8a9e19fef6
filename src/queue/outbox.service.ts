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

export const OUTBOX_COLUMNS = 'id, workspace_id, queue, job_name, payload, run_at';
const COLUMN_TYPES = ['uuid', 'uuid', 'varchar', 'varchar', 'jsonb', 'timestamptz'];

/**
 * Outbox rows as statement parameters, for {@link Outbox.enqueue} and for statements that write
 * the rows together with other changes: `placeholders[i]` lists row i's values (in the order of
 * {@link OUTBOX_COLUMNS}) as `$n` from `firstParam` on.
 */
export function outboxRows(entries: OutboxEntry[], firstParam = 1): { ids: string[]; placeholders: string[]; params: unknown[] } {
  const ids = entries.map(() => newId());
  const params = entries.flatMap((entry, i) => [
    ids[i],
    entry.workspaceId ?? null,
    QUEUE_OF_JOB[entry.jobName],
    entry.jobName,
    entry.payload,
    entry.runAt ?? null,
  ]);
  const placeholders = entries.map((_, i) => COLUMN_TYPES.map((type, k) => `$${firstParam + i * 6 + k}::${type}`).join(', '));
  return { ids, placeholders, params };
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
    const rows = outboxRows(entries);
    await manager.query(
      `INSERT INTO outbox_messages (${OUTBOX_COLUMNS}) VALUES ${rows.placeholders.map((p) => `(${p})`).join(', ')}`,
      rows.params,
    );
    return rows.ids;
  }

  /** Call after the transaction committed: dispatches without waiting for the next poll. */
  afterCommit(): void {
    this.relay.kick();
  }
}
