import { InjectQueue } from '@nestjs/bull';
import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bull';
import { AppConfig } from '../../config/app-config.js';
import { JobHandler } from '../../queue/job-handler.decorator.js';
import { JobName, QueueName } from '../../queue/queue-names.js';
import { IdempotencyService } from './idempotency.service.js';

/** Deletes expired keys every hour (a repeatable job: one schedule however many workers run). */
@Injectable()
export class IdempotencyMaintenance implements OnApplicationBootstrap {
  constructor(
    private readonly idempotency: IdempotencyService,
    private readonly config: AppConfig,
    @InjectQueue(QueueName.Maintenance) private readonly queue: Queue,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.runsWorker) return;
    await this.queue.add(
      JobName.PurgeExpiredIdempotencyKeys,
      {},
      { repeat: { every: 3600_000 }, jobId: JobName.PurgeExpiredIdempotencyKeys },
    );
  }

  @JobHandler(JobName.PurgeExpiredIdempotencyKeys)
  async purge(): Promise<{ deleted: number }> {
    return { deleted: await this.idempotency.purgeExpired() };
  }
}
