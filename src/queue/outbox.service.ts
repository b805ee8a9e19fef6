import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager, type EntitySubscriberInterface, type QueryRunner, type TransactionCommitEvent } from 'typeorm';
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

/** A transaction opened by {@link Outbox.transaction}: its manager, and jobs pushed to Bull once it commits. */
export interface OutboxTransaction {
  readonly manager: EntityManager;
  /** Writes jobs in this transaction; they are pushed to Bull after it commits. */
  enqueue(entries: OutboxEntry[]): Promise<OutboxRow[]>;
  /** Rows written in this transaction by another writer (the webhook publisher), pushed after commit too. */
  pushAfterCommit(rows: OutboxRow[]): void;
}

/**
 * The one way request code hands work to workers: `enqueue` inside the transaction that makes
 * the change, then `afterCommit` (or rely on the relay's polling) to push it to Bull promptly.
 */
@Injectable()
export class Outbox {
  /** Rows written by {@link pushOnCommit} callers, by the transaction (query runner) that wrote them. */
  private readonly awaitingCommit = new WeakMap<QueryRunner, OutboxRow[]>();

  constructor(
    private readonly relay: OutboxRelay,
    private readonly dataSource: DataSource,
  ) {
    const listener: EntitySubscriberInterface = {
      afterTransactionCommit: (event: TransactionCommitEvent) => this.settle(event.queryRunner, true),
      afterTransactionRollback: (event) => this.settle(event.queryRunner, false),
    };
    dataSource.subscribers.push(listener);
  }

  /**
   * Pushes rows written with `manager` to Bull once its transaction commits (dropped if it rolls
   * back): for writers deep inside a transaction they did not open, which cannot reach its
   * `OutboxTransaction`. Outside a transaction the rows are pushed at once.
   */
  pushOnCommit(manager: EntityManager, rows: OutboxRow[]): void {
    const runner = manager.queryRunner;
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

  /**
   * Runs `work` in a transaction and, once it has committed, pushes the jobs it wrote to Bull
   * (the relay's polling remains the safety net if this process dies in between).
   */
  async transaction<T>(work: (tx: OutboxTransaction) => Promise<T>): Promise<T> {
    const written: OutboxRow[] = [];
    const value = await this.dataSource.transaction((manager) =>
      work({
        manager,
        enqueue: async (entries) => {
          const rows = await this.write(manager, entries);
          written.push(...rows);
          return rows;
        },
        pushAfterCommit: (rows) => written.push(...rows),
      }),
    );
    if (written.length > 0) this.pushCommitted(written);
    return value;
  }

  /** Writes the jobs with `manager` (the caller's transaction). Returns their ids, which are the Bull job ids. */
  async enqueue(manager: EntityManager, entries: OutboxEntry[]): Promise<string[]> {
    return (await this.write(manager, entries)).map((row) => row.id);
  }

  /** {@link enqueue}, returning the rows, for {@link pushCommitted}. */
  async write(manager: EntityManager, entries: OutboxEntry[]): Promise<OutboxRow[]> {
    if (entries.length === 0) return [];
    const { rows, placeholders, params } = outboxRows(entries);
    await manager.query(`INSERT INTO outbox_messages (${OUTBOX_COLUMNS}) VALUES ${placeholders.map((p) => `(${p})`).join(', ')}`, params);
    return rows;
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
