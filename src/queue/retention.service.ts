import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import type { Queue } from 'bull';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config.js';
import { deleteBatch } from '../database/sql-helpers.js';
import { JobHandler } from './job-handler.decorator.js';
import { JobName, QueueName } from './queue-names.js';

/** One table that grows without bound, and how to delete its rows finished before a cutoff. */
export interface RetentionRule {
  /** The table, as reported in the job's result. */
  table: string;
  /** How long a finished row is kept. */
  keepMs: number;
  /** Deletes at most `limit` rows finished before `cutoff` in one short statement; the number deleted. */
  deleteBatch(cutoff: Date, limit: number): Promise<number>;
}

export interface PruneResult {
  deleted: number;
  batches: number;
}

/**
 * A run deletes at most this many batches per table (a million rows at the default batch size):
 * a backlog is worked off over several runs rather than by one job holding the worker for hours.
 */
const MAX_BATCHES_PER_RUN = 1000;

/**
 * Keeps the tables that grow with traffic bounded. Each owning module registers its table
 * ({@link register}); one repeatable job (one schedule however many workers run) deletes, table by
 * table, the rows older than their retention in batches of RETENTION_BATCH_SIZE, each batch its own
 * short statement that skips rows in use, so the hot tables are never locked for long.
 */
@Injectable()
export class Retention implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger(Retention.name);
  private readonly rules = new Map<string, RetentionRule>();

  constructor(
    private readonly config: AppConfig,
    private readonly dataSource: DataSource,
    @InjectQueue(QueueName.Maintenance) private readonly queue: Queue,
  ) {}

  /** The outbox is the queue module's own table: a row goes once its job finished (or was given up). */
  onModuleInit(): void {
    this.register({
      table: 'outbox_messages',
      keepMs: this.config.retention.outboxMs,
      deleteBatch: (cutoff, limit) => deleteBatch(this.dataSource.manager, 'outbox_messages', 'completed_at < $1', [cutoff], limit),
    });
  }

  register(rule: RetentionRule): void {
    if (this.rules.has(rule.table)) throw new Error(`Retention of ${rule.table} registered twice`);
    this.rules.set(rule.table, rule);
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.runsWorker) return;
    const every = this.config.retention.intervalMs;
    // A schedule left by an earlier configuration would keep running beside the new one.
    for (const job of await this.queue.getRepeatableJobs()) {
      if (job.name === JobName.PruneOldRows && Number(job.every) !== every) await this.queue.removeRepeatableByKey(job.key);
    }
    await this.queue.add(JobName.PruneOldRows, {}, { repeat: { every }, jobId: JobName.PruneOldRows });
  }

  @JobHandler(JobName.PruneOldRows)
  async run(): Promise<Record<string, PruneResult>> {
    const results: Record<string, PruneResult> = {};
    for (const table of this.rules.keys()) results[table] = await this.prune(table);
    const deleted = Object.entries(results).filter(([, r]) => r.deleted > 0);
    if (deleted.length > 0) this.logger.log(`Pruned ${deleted.map(([table, r]) => `${r.deleted} ${table}`).join(', ')}`);
    for (const [table] of deleted) await this.reclaim(table);
    return results;
  }

  /**
   * VACUUM after pruning, so the space of the rows deleted is reused by the next inserts: these
   * tables are written and pruned all day, and without a vacuum (autovacuum turned off, or too slow
   * for them) they grow by every row ever inserted although the rows kept stay few (a 30-minute soak
   * here, with autovacuum off: 16,000 live webhook deliveries in a table grown to 365 MB). A plain
   * VACUUM takes no lock that blocks reads or writes.
   */
  private async reclaim(table: string): Promise<void> {
    await this.dataSource.query(`VACUUM (ANALYZE) "${table}"`);
  }

  /** Deletes `table`'s rows older than its retention, a batch at a time, up to `maxBatches` batches. */
  async prune(table: string, maxBatches = MAX_BATCHES_PER_RUN): Promise<PruneResult> {
    const rule = this.rules.get(table);
    if (!rule) throw new Error(`No retention registered for ${table}`);
    const cutoff = new Date(Date.now() - rule.keepMs);
    const limit = this.config.retention.batchSize;
    const result: PruneResult = { deleted: 0, batches: 0 };
    while (result.batches < maxBatches) {
      const deleted = await rule.deleteBatch(cutoff, limit);
      result.batches++;
      result.deleted += deleted;
      if (deleted < limit) break;
      // Let requests and other jobs of this process in between batches.
      await new Promise((resolve) => setImmediate(resolve));
    }
    return result;
  }
}
