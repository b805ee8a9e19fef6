import { Injectable } from '@nestjs/common';
import { DataSource, type EntitySubscriberInterface, type QueryRunner, type TransactionCommitEvent } from 'typeorm';
import { currentManager } from '../database/transactions.js';
import { newId } from '../common/id.js';
import type { OutboxEntry } from './job-payloads.js';
import { QUEUE_OF_JOB } from './queue-names.js';
import { OutboxRelay } from './outbox.relay.js';

export type { OutboxEntry } from './job-payloads.js';

export const OUTBOX_COLUMNS = 'id, workspace_id, queue, job_name, payload, run_at';
const COLUMN_TYPES = ['uuid', 'uuid', 'varchar', 'varchar', 'jsonb', 'timestamptz'];

/** An outbox row as written: what its job is made of. */
export interface OutboxRow {
  id: string;
  workspaceId: string | null;
  queue: string;
  jobName: string;
  payload: Record<string, unknown>;
  runAt: Date | null;
}

/**
 * Outbox rows as statement parameters, for {@link Outbox.write} and for statements that write
 * the rows together with other changes: `placeholders[i]` lists row i's values (in the order of
 * {@link OUTBOX_COLUMNS}) as `$n` from `firstParam` on.
 */
export function outboxRows(entries: OutboxEntry[], firstParam = 1): { rows: OutboxRow[]; placeholders: string[]; params: unknown[] } {
  const rows = entries.map((entry) => ({
    id: newId(),
    workspaceId: entry.workspaceId ?? null,
    queue: QUEUE_OF_JOB[entry.jobName],
    jobName: entry.jobName,
    payload: entry.payload as Record<string, unknown>,
    runAt: entry.runAt ?? null,
  }));
  const params = rows.flatMap((row) => [row.id, row.workspaceId, row.queue, row.jobName, row.payload, row.runAt]);
  const placeholders = rows.map((_, i) => COLUMN_TYPES.map((type, k) => `$${firstParam + i * 6 + k}::${type}`).join(', '));
  return { rows, placeholders, params };
}

/**
 * The one way code hands work to workers: {@link Outbox.enqueue} inside the transaction that makes
 * the change (the ambient one, `@Transactional()` on the calling service); the jobs are pushed to
 * Bull as soon as it commits, and the relay's polling remains the safety net if this process dies
 * in between.
 */
@Injectable()
export class Outbox {
  /** Rows waiting for their transaction (query runner) to commit. */
  private readonly awaitingCommit = new WeakMap<QueryRunner, OutboxRow[]>();

  constructor(
    private readonly relay: OutboxRelay,
    dataSource: DataSource,
  ) {
    const listener: EntitySubscriberInterface = {
      afterTransactionCommit: (event: TransactionCommitEvent) => this.settle(event.queryRunner, true),
      afterTransactionRollback: (event) => this.settle(event.queryRunner, false),
    };
    dataSource.subscribers.push(listener);
  }

  /**
   * Writes jobs in the ambient transaction; they are pushed to Bull once it commits (dropped if it
   * rolls back). Outside a transaction they are written and pushed at once. Returns the rows, whose
   * ids are the Bull job ids.
   */
  async enqueue(entries: OutboxEntry[]): Promise<OutboxRow[]> {
    if (entries.length === 0) return [];
    const { rows, placeholders, params } = outboxRows(entries);
    await currentManager().query(
      `INSERT INTO outbox_messages (${OUTBOX_COLUMNS}) VALUES ${placeholders.map((p) => `(${p})`).join(', ')}`,
      params,
    );
    this.pushOnCommit(rows);
    return rows;
  }

  /**
   * Pushes rows another writer put in the ambient transaction (a statement that writes outbox rows
   * together with other changes, see {@link outboxRows}) once it commits; at once outside one.
   */
  pushOnCommit(rows: OutboxRow[]): void {
    const runner = currentManager().queryRunner;
    if (rows.length === 0) return;
    if (!runner?.isTransactionActive) return this.pushCommitted(rows);
    const pending = this.awaitingCommit.get(runner);
    if (pending) pending.push(...rows);
    else this.awaitingCommit.set(runner, [...rows]);
  }

  private settle(runner: QueryRunner, committed: boolean): void {
    if (runner.isTransactionActive) return; // a savepoint: the transaction goes on
    const rows = this.awaitingCommit.get(runner);
    if (!rows) return;
    this.awaitingCommit.delete(runner);
    if (committed) this.pushCommitted(rows);
  }

  /** After the transaction that wrote `rows` committed: pushes them to Bull at once, without a relay round. */
  pushCommitted(rows: OutboxRow[]): void {
    this.relay.pushCommitted(rows);
  }

  /** Call after the transaction committed: dispatches without waiting for the next poll. */
  afterCommit(): void {
    this.relay.kick();
  }
}
