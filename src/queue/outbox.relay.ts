import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config.js';
import { OutboxMessage } from './outbox-message.entity.js';
import { QueueName } from './queue-names.js';

const BATCH_SIZE = 500;
const REDIS_TIMEOUT_MS = 5000;
/** A dispatched job unfinished for this long is looked up in Redis, and pushed again if Redis lost it. */
const RECOVERY_CHECK_EVERY_MS = 10_000;
const COMPLETE_BATCH_MS = 5;
const MIN_ROUND_GAP_MS = 10;

/**
 * Moves committed outbox rows to Bull. Each row becomes the job whose id is the row id, so a
 * row dispatched twice (a crash between the push and the stamp) is still one job. Rows are
 * claimed with `FOR UPDATE SKIP LOCKED`, so any number of processes can relay at once; rows left
 * behind by a crash or a Redis outage are picked up by the next poll.
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
  private completing: { ids: string[]; done: Promise<void> } | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly moduleRef: ModuleRef,
    private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.kick(), this.config.outbox.pollIntervalMs);
    this.timer.unref();
    this.kick();
  }

  /** Stops polling and waits for the round in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.delayed);
    await this.running;
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
      if (Date.now() - this.lastRecoveryCheck >= Math.min(RECOVERY_CHECK_EVERY_MS, this.config.outbox.recoverAfterMs)) {
        this.lastRecoveryCheck = Date.now();
        await this.recoverLostJobs();
      }
    } catch (err) {
      this.logger.warn({ err }, 'Outbox dispatch failed; pending rows stay for the next round');
    }
    return total;
  }

  /**
   * Redis keeps jobs in memory: a restart without persistence, a failover or an eviction can lose
   * jobs that were already dispatched. Rows dispatched a while ago and still unfinished are looked
   * up in their queue, and pushed again (same job id) when the queue no longer has them.
   */
  async recoverLostJobs(): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      const rows = await manager
        .createQueryBuilder(OutboxMessage, 'o')
        .where('o.dispatched_at IS NOT NULL AND o.completed_at IS NULL')
        .andWhere(`o.dispatched_at < now() - make_interval(secs => :after)`, { after: this.config.outbox.recoverAfterMs / 1000 })
        .orderBy('o.dispatched_at', 'ASC')
        .limit(BATCH_SIZE)
        .setLock('pessimistic_write')
        .setOnLocked('skip_locked')
        .getMany();
      const lost: OutboxMessage[] = [];
      for (const row of rows) {
        const job = await withTimeout(this.queue(row.queue as QueueName).getJob(row.id), REDIS_TIMEOUT_MS, 'Redis did not answer');
        if (!job) lost.push(row);
      }
      if (lost.length > 0) {
        await withTimeout(this.push(lost), REDIS_TIMEOUT_MS, 'Redis did not accept the jobs in time');
        this.logger.warn(`Pushed ${lost.length} job(s) again that Redis had lost`);
      }
      return lost.length;
    });
  }

  /**
   * Marks a job's row finished, so recovery leaves it alone. Rows finished within a few ms of each
   * other are stamped by one UPDATE; the promise settles with it.
   */
  markCompleted(outboxId: string): Promise<void> {
    if (!this.completing) {
      const ids: string[] = [];
      const done = new Promise((resolve) => setTimeout(resolve, COMPLETE_BATCH_MS)).then(async () => {
        this.completing = undefined;
        await this.dataSource.query('UPDATE outbox_messages SET completed_at = now() WHERE id = ANY($1::uuid[]) AND completed_at IS NULL', [
          ids,
        ]);
      });
      this.completing = { ids, done };
    }
    this.completing.ids.push(outboxId);
    return this.completing.done;
  }

  /**
   * Claims the oldest pending rows and stamps them in one statement, pushes them, and commits only
   * once Redis has them: a failed push rolls the stamp back and the rows stay pending.
   */
  private dispatchBatch(): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      const claimed = (await manager.query(
        `WITH claimed AS (
           UPDATE outbox_messages SET dispatched_at = now()
            WHERE id IN (SELECT id FROM outbox_messages WHERE dispatched_at IS NULL ORDER BY created_at LIMIT $1 FOR UPDATE SKIP LOCKED)
            RETURNING id, workspace_id, queue, job_name, payload, run_at, created_at)
         SELECT * FROM claimed ORDER BY created_at`,
        [BATCH_SIZE],
      )) as ClaimedRow[];
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

  private async push(rows: PushedRow[]): Promise<void> {
    const byQueue = new Map<string, PushedRow[]>();
    for (const row of rows) byQueue.set(row.queue, [...(byQueue.get(row.queue) ?? []), row]);
    const now = Date.now();
    await Promise.all(
      [...byQueue].map(([name, queued]) =>
        this.queue(name as QueueName).addBulk(
          queued.map((row) => ({
            name: row.jobName,
            data: { ...row.payload, outboxId: row.id, workspaceId: row.workspaceId },
            opts: { jobId: row.id, delay: row.runAt ? Math.max(0, row.runAt.getTime() - now) : undefined },
          })),
        ),
      ),
    );
  }

  private queue(name: QueueName): Queue {
    return this.moduleRef.get<Queue>(getQueueToken(name), { strict: false });
  }
}

/** What a job is made of. */
type PushedRow = Pick<OutboxMessage, 'id' | 'workspaceId' | 'queue' | 'jobName' | 'payload' | 'runAt'>;

interface ClaimedRow {
  id: string;
  workspace_id: string | null;
  queue: string;
  job_name: string;
  payload: Record<string, unknown>;
  run_at: Date | null;
  created_at: Date;
}

function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
