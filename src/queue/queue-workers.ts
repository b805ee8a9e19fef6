import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, ModuleRef, Reflector } from '@nestjs/core';
import { getQueueToken } from '@nestjs/bull';
import type { Job, Queue } from 'bull';
import { AppConfig } from '../config/app-config.js';
import { JOB_HANDLER, type JobHandlerOptions } from './job-handler.decorator.js';
import { JobName, QUEUE_OF_JOB } from './queue-names.js';
import { QueueMetrics } from './queue-metrics.js';
import { OutboxRelay } from './outbox.relay.js';
import { isLastAttempt } from './retry-later.js';

type Handler = (job: Job) => Promise<unknown>;

/**
 * Binds every `@JobHandler` method to its queue when this process runs workers
 * (`APP_ROLE=worker|all`). Fails the boot when a job name has no handler, or two.
 */
@Injectable()
export class QueueWorkers implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(QueueWorkers.name);
  private stopping = false;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    private readonly moduleRef: ModuleRef,
    private readonly config: AppConfig,
    private readonly metrics: QueueMetrics,
    private readonly relay: OutboxRelay,
  ) {}

  onApplicationBootstrap(): void {
    const handlers = this.discoverHandlers();
    const missing = Object.values(JobName).filter((name) => !handlers.has(name));
    if (missing.length > 0) throw new Error(`No @JobHandler for job name(s): ${missing.join(', ')}`);
    if (!this.config.runsWorker) return;
    for (const [name, { handler, options }] of handlers) {
      const queue = this.moduleRef.get<Queue>(getQueueToken(QUEUE_OF_JOB[name]), { strict: false });
      // process() settles when the worker loop ends; during shutdown that is a closed connection, not a failure.
      queue
        .process(name, options.concurrency ?? 1, (job: Job) => this.metrics.track(queue.name, name, () => this.run(job, handler)))
        .catch((err: Error) => {
          if (!this.stopping) this.logger.error({ err }, `Worker loop for ${name} stopped`);
        });
    }
    this.logger.log(`Processing ${handlers.size} job type(s)`);
  }

  /** Runs the handler; a job that succeeded, or failed its last attempt, marks its outbox row finished. */
  private async run(job: Job, handler: Handler): Promise<unknown> {
    const outboxId = (job.data as { outboxId?: string }).outboxId;
    try {
      const result = await handler(job);
      // The stamp is batched with other jobs' and not waited for: the job's slot is not held for it,
      // and if it is lost (a crash) or fails, recovery finds the job done in Redis.
      if (outboxId)
        void this.relay.markCompleted(outboxId).catch((err: unknown) => this.logger.warn({ err }, 'Outbox completion stamp failed'));
      return result;
    } catch (err) {
      if (outboxId && isLastAttempt(job)) await this.relay.markCompleted(outboxId).catch(() => undefined);
      throw err;
    }
  }

  beforeApplicationShutdown(): void {
    this.stopping = true;
  }

  private discoverHandlers(): Map<JobName, { handler: Handler; options: JobHandlerOptions }> {
    const found = new Map<JobName, { handler: Handler; options: JobHandlerOptions }>();
    for (const wrapper of this.discovery.getProviders()) {
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      if (!instance || typeof instance !== 'object') continue;
      const prototype = Object.getPrototypeOf(instance) as object;
      for (const method of this.scanner.getAllMethodNames(prototype)) {
        const meta = this.reflector.get<{ name: JobName } & JobHandlerOptions>(JOB_HANDLER, instance[method] as never);
        if (!meta) continue;
        if (found.has(meta.name)) throw new Error(`Two @JobHandler methods for job name ${meta.name}`);
        found.set(meta.name, { handler: (instance[method] as Handler).bind(instance), options: meta });
      }
    }
    return found;
  }
}
