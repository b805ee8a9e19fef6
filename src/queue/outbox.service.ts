import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { newId } from '../common/id.js';
import type { OutboxEntry, WebhookEventData, WebhookEventEnvelope } from './job-payloads.js';
import { QUEUE_OF_JOB, WEBHOOK_EVENTS_QUEUE, type WebhookEventType } from './queue-names.js';
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
  constructor(
    private readonly relay: OutboxRelay,
    private readonly dataSource: DataSource,
  ) {}

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

  /**
   * Writes a webhook endpoints' event (API.md §11.1) with `manager` (the transaction of the change):
   * an outbox row on {@link WEBHOOK_EVENTS_QUEUE} that stays pending until a version delivering
   * such events runs (see {@link WebhookEventType}). Returns the event, as written.
   */
  async writeEvent<T extends WebhookEventType>(
    manager: EntityManager,
    workspaceId: string,
    type: T,
    data: WebhookEventData[T],
  ): Promise<WebhookEventEnvelope<T>> {
    const event: WebhookEventEnvelope<T> = { type, timestamp: new Date().toISOString(), workspaceId, data };
    await manager.query(`INSERT INTO outbox_messages (${OUTBOX_COLUMNS}) VALUES ($1, $2, $3, $4, $5, NULL)`, [
      newId(),
      workspaceId,
      WEBHOOK_EVENTS_QUEUE,
      type,
      event,
    ]);
    return event;
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
