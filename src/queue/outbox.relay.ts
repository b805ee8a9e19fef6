import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { getQueueToken } from '@nestjs/bull';
import type { Job, Queue } from 'bull';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config.js';
import { OutboxMessage } from './outbox-message.entity.js';
import { ALL_QUEUES, JobName, QueueName } from './queue-names.js';
import { BatchedStamp } from './batched-stamp.js';
import type { OutboxRow } from './outbox.service.js';
import { QueueRedisConnections } from './redis-connection.js';

const BATCH_SIZE = 500;
const REDIS_TIMEOUT_MS = 5000;
/** A dispatched job unfinished for this long is looked up in Redis, and pushed again if Redis lost it. */
const RECOVERY_CHECK_EVERY_MS = 10_000;
/** Dispatched and completed stamps are written for the rows of this many ms at once. */
const STAMP_BATCH_MS = 25;
const MIN_ROUND_GAP_MS = 10;
/** Bull's reason for a job failed because its workers died under it more than `maxStalledCount` times. */
const STALLED_OUT_REASON = 'job stalled more than allowable limit';

/**
 * Moves committed outbox rows to Bull. Each row becomes the job whose id is the row id, so a
 * row dispatched twice (a crash between the push and the stamp) is still one job. Rows are
 * claimed with `FOR UPDATE SKIP LOCKED`, so any number of processes can relay at once; rows left
 * behind by a crash or a Redis outage are picked up by the next poll. A request that knows the
 * rows it committed can skip the round trip through the table ({@link pushCommitted}).
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap {
  private readonly logger = new Logger(OutboxRelay.name);
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private lastRoundAt = 0;
  private delayed: NodeJS.Timeout | undefined;
  private stopped = false;
  private lastRecoveryCheck = 0;
  /** When Redis came back after an outage (0: not since this process started). */
  private reconnectedAt = 0;
  private committed: OutboxRow[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private readonly completedStamps: BatchedStamp;
  private readonly dispatchedStamps: BatchedStamp;

  constructor(
    private readonly dataSource: DataSource,
    private readonly moduleRef: ModuleRef,
    private readonly config: AppConfig,
    private readonly connections: QueueRedisConnections,
  ) {
    this.completedStamps = new BatchedStamp(dataSource, 'completed_at', STAMP_BATCH_MS);
    this.dispatchedStamps = new BatchedStamp(dataSource, 'dispatched_at', STAMP_BATCH_MS);
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.kick(), this.config.outbox.pollIntervalMs);
    this.timer.unref();
    this.connections.onReconnected(() => {
      this.reconnectedAt = Date.now();
      this.lastRecoveryCheck = 0;
      this.kick();
    });
    this.kick();
  }

  /** Stops polling and waits for the round and the direct pushes in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.delayed);
    await Promise.all([this.running, ...this.inFlight]);
  }

  /**
   * Dispatches soon: at once when idle; calls while a round runs are folded into one more round,
   * started no sooner than {@link MIN_ROUND_GAP_MS} after the previous one, so that under load a
   * round carries the rows of many requests instead of one.
   */
  kick(): void {
    if (this.stopped || this.delayed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    const wait = this.lastRoundAt + MIN_ROUND_GAP_MS - Date.now();
    if (wait > 0) {
      this.delayed = setTimeout(() => {
        this.delayed = undefined;
        this.kick();
      }, wait);
      return;
    }
    this.lastRoundAt = Date.now();
    this.running = this.drain()
      .then(() => undefined)
      .finally(() => {
        this.running = undefined;
        if (this.again && !this.stopped) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Dispatches until no pending row is left (or a round fails). Returns the number of rows moved. */
  async drain(): Promise<number> {
    let total = 0;
    try {
      for (;;) {
        const moved = await this.dispatchBatch();
        total += moved;
        if (moved < BATCH_SIZE || this.stopped) break;
      }
      const afterMs = this.recoveryAge();
      if (Date.now() - this.lastRecoveryCheck >= Math.min(RECOVERY_CHECK_EVERY_MS, afterMs)) {
        this.lastRecoveryCheck = Date.now();
        await this.recoverLostJobs(afterMs);
      }
    } catch (err) {
      this.logger.warn({ err }, 'Outbox dispatch failed; pending rows stay for the next round');
    }
    return total;
  }

  /**
   * How old an unfinished dispatched row must be before its job is looked up. Normally
   * OUTBOX_RECOVER_AFTER_MS. For that long after Redis came back (perhaps empty, having lost its jobs),
   * only a job lock's duration: a handler that was running when Redis went away has ended by then and
   * recorded what it did, so pushing its job again cannot make it act twice (a send finds its message
   * no longer Pending), while jobs that were merely waiting come back within seconds, not minutes.
   */
  private recoveryAge(): number {
    const { recoverAfterMs } = this.config.outbox;
    const sinceReconnect = Date.now() - this.reconnectedAt;
    return this.reconnectedAt > 0 && sinceReconnect < recoverAfterMs
      ? Math.min(this.config.queues.lockDurationMs, recoverAfterMs)
      : recoverAfterMs;
  }

  /**
   * Redis keeps jobs in memory: a restart without persistence, a failover or an eviction can lose
   * jobs that were already dispatched. Rows dispatched more than `afterMs` ago and still unfinished
   * (a delayed job: that long after it was due) are looked up in their queue, and pushed again (same
   * job id) when the queue no longer has them. For a while after Redis came back, `afterMs` is short ({@link recoveryAge}).
   */
  async recoverLostJobs(afterMs = this.config.outbox.recoverAfterMs): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      const rows = await manager
        .createQueryBuilder(OutboxMessage, 'o')
        .where('o.dispatched_at IS NOT NULL AND o.completed_at IS NULL')
        .andWhere('o.queue = ANY(:queues)', { queues: ALL_QUEUES })
        .andWhere(`o.dispatched_at < now() - make_interval(secs => :after)`, { after: afterMs / 1000 })
        // A job delayed until `run_at` (a scheduled send) is checked once it is due: until then it is
        // expected to wait in Redis, and the oldest due rows are not crowded out by scheduled ones.
        .andWhere(`(o.run_at IS NULL OR o.run_at < now() - make_interval(secs => :after))`)
        .orderBy('o.dispatched_at', 'ASC')
        .limit(BATCH_SIZE)
        .setLock('pessimistic_write')
        .setOnLocked('skip_locked')
        .getMany();
      const lost: OutboxMessage[] = [];
      for (const row of rows) {
        const job = await withTimeout(this.queue(row.queue as QueueName).getJob(row.id), REDIS_TIMEOUT_MS, 'Redis did not answer');
        if (job && isJobOf(job, row)) {
          if (job.failedReason === STALLED_OUT_REASON) await this.retryStalledOut(job);
          continue;
        }
        if (job && !(await this.removeRemnant(job))) continue;
        lost.push(row);
      }
      if (lost.length > 0) {
        await withTimeout(this.push(lost), REDIS_TIMEOUT_MS, 'Redis did not accept the jobs in time');
        this.logger.warn(`Pushed ${lost.length} job(s) again that Redis had lost`);
      }
      return lost.length;
    });
  }

  /**
   * A job whose workers died under it more often than Bull allows (`maxStalledCount`) is failed by
   * Bull without its handler ever ending, so nothing finished its work: it runs again (its handler
   * knows what a run cut short left, e.g. a send whose provider call was under way).
   */
  private async retryStalledOut(job: Job): Promise<void> {
    try {
      await withTimeout(job.retry(), REDIS_TIMEOUT_MS, 'Redis did not answer');
      this.logger.warn(`Job ${String(job.id)} (${job.name}) stalled out of Bull's limit: queued to run again`);
    } catch (err) {
      this.logger.warn({ err }, `Job ${String(job.id)} stalled out and could not be queued again yet`);
    }
  }

  /**
   * Deletes what is left of a job whose hash a restarted Redis rebuilt from a replayed command (see
   * {@link isJobOf}), so that it can be pushed again under the same id. A remnant still locked by a
   * worker is left for a later check (false).
   */
  private async removeRemnant(job: Job): Promise<boolean> {
    try {
      await withTimeout(job.remove(), REDIS_TIMEOUT_MS, 'Redis did not answer');
      this.logger.warn(`Removed the remnant of job ${String(job.id)} (no name or data) to push it again`);
      return true;
    } catch (err) {
      this.logger.warn({ err }, `The remnant of job ${String(job.id)} could not be removed yet`);
      return false;
    }
  }

  /** Marks a job's row finished, so recovery leaves it alone (stamped with the rows finished around the same time). */
  markCompleted(outboxId: string): Promise<void> {
    return this.completedStamps.add(outboxId);
  }

  /**
   * Rows this process has just committed: pushed to Bull on the next tick, together with the rows
   * committed meanwhile, then stamped dispatched, without waiting for a relay round. A row whose
   * push fails stays pending for the rounds; a row pushed twice (job id = row id) is still one job.
   */
  pushCommitted(rows: OutboxRow[]): void {
    if (this.stopped) return; // left pending for the next process's rounds
    if (this.committed.push(...rows) > rows.length) return;
    this.track(
      new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
        const batch = this.committed.splice(0);
        try {
          await withTimeout(this.push(batch), REDIS_TIMEOUT_MS, 'Redis did not accept the jobs in time');
          await this.dispatchedStamps.add(...batch.map((row) => row.id));
        } catch (err) {
          this.logger.warn({ err }, 'Direct dispatch failed; the rows stay pending for the next round');
          this.kick();
        }
      }),
    );
  }

  /**
   * Claims the oldest pending rows and stamps them in one statement, pushes them, and commits only
   * once Redis has them: a failed push rolls the stamp back and the rows stay pending.
   */
  private dispatchBatch(): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      const claimed = await manager.query<ClaimedRow[]>(
        `WITH claimed AS (
           UPDATE outbox_messages SET dispatched_at = now()
            WHERE id IN (SELECT id FROM outbox_messages WHERE dispatched_at IS NULL AND queue = ANY($2::varchar[])
                          ORDER BY created_at LIMIT $1 FOR UPDATE SKIP LOCKED)
            RETURNING id, workspace_id, queue, job_name, payload, run_at, created_at)
         SELECT * FROM claimed ORDER BY created_at`,
        // Only queues this version knows: a row for another (a newer version's) waits for a process that does, without blocking the rest.
        [BATCH_SIZE, ALL_QUEUES],
      );
      if (claimed.length === 0) return 0;
      const rows = claimed.map((row) => ({
        id: row.id,
        workspaceId: row.workspace_id,
        queue: row.queue,
        jobName: row.job_name,
        payload: row.payload,
        runAt: row.run_at,
      }));
      await withTimeout(this.push(rows), REDIS_TIMEOUT_MS, 'Redis did not accept the jobs in time');
      return rows.length;
    });
  }

  private track(work: Promise<void>): void {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
  }

  private async push(rows: OutboxRow[]): Promise<void> {
    const byQueue = new Map<string, OutboxRow[]>();
    for (const row of rows) byQueue.set(row.queue, [...(byQueue.get(row.queue) ?? []), row]);
    const now = Date.now();
    await Promise.all(
      [...byQueue].map(([name, queued]) =>
        this.queue(name as QueueName).addBulk(
          queued.map((row) => ({
            name: row.jobName,
            data: { ...row.payload, outboxId: row.id, workspaceId: row.workspaceId },
            opts: {
              jobId: row.id,
              delay: row.runAt ? Math.max(0, row.runAt.getTime() - now) : undefined,
              ...this.optionsOf(row.jobName),
            },
          })),
        ),
      ),
    );
  }

  /** Job options that differ from the queues' defaults, by job name. */
  private optionsOf(jobName: string): { attempts?: number } {
    return jobName === (JobName.DownloadWhatsAppMedia as string) ? { attempts: this.config.whatsapp.mediaDownloadAttempts } : {};
  }

  private queue(name: QueueName): Queue {
    return this.moduleRef.get<Queue>(getQueueToken(name), { strict: false });
  }
}

interface ClaimedRow {
  id: string;
  workspace_id: string | null;
  queue: string;
  job_name: string;
  payload: Record<string, unknown>;
  run_at: Date | null;
  created_at: Date;
}

/**
 * Whether the job in Redis is the one the row describes. A command in flight when Redis restarts
 * (Bull's move to active, say) is replayed by the client on the new, empty server and can write a
 * few fields under the job's key: the job then exists without its name or data, is never run, and
 * would keep recovery from pushing it again.
 */
function isJobOf(job: Job, row: OutboxMessage): boolean {
  return job.name === row.jobName && (job.data as { outboxId?: string } | undefined)?.outboxId === row.id;
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
