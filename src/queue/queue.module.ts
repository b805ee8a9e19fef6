import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { BullModule } from '@nestjs/bull';
import { AppConfig } from '../config/app-config.js';
import { Outbox } from './outbox.service.js';
import { OutboxRelay } from './outbox.relay.js';
import { ALL_QUEUES } from './queue-names.js';
import { QueueMetrics } from './queue-metrics.js';
import { QueueWorkers } from './queue-workers.js';
import { QueueRedisConnections } from './redis-connection.js';
import { QueueLifecycle } from './queue-lifecycle.js';
import { Retention } from './retention.service.js';
import { BACKOFF_STRATEGY, backoffDelay } from './retry-later.js';

/**
 * Retries with exponential backoff (stretched to a provider's Retry-After, see RetryLaterError);
 * finished jobs kept for QUEUE_COMPLETED_JOB_RETENTION (a day by default, never under twice the
 * relay's recovery horizon) so a re-pushed job id is still recognised.
 */
export function defaultJobOptions(completedJobRetentionMs: number) {
  return {
    attempts: 5,
    backoff: { type: BACKOFF_STRATEGY },
    removeOnComplete: { age: Math.ceil(completedJobRetentionMs / 1000), count: 50_000 },
    removeOnFail: { age: 7 * 24 * 3600, count: 50_000 },
  };
}

@Module({ providers: [QueueRedisConnections], exports: [QueueRedisConnections] })
class QueueConnectionsModule {}

@Global()
@Module({
  imports: [
    QueueConnectionsModule,
    DiscoveryModule,
    BullModule.forRootAsync({
      imports: [QueueConnectionsModule],
      inject: [AppConfig, QueueRedisConnections],
      useFactory: (config: AppConfig, connections: QueueRedisConnections) => ({
        prefix: `${config.redis.keyPrefix}:bull`,
        defaultJobOptions: defaultJobOptions(config.queues.completedJobRetentionMs),
        settings: {
          lockDuration: config.queues.lockDurationMs,
          stalledInterval: config.queues.lockDurationMs,
          backoffStrategies: { [BACKOFF_STRATEGY]: backoffDelay },
        },
        createClient: (type) => connections.connectionFor(type),
      }),
    }),
    BullModule.registerQueue(...ALL_QUEUES.map((name) => ({ name }))),
  ],
  providers: [Outbox, OutboxRelay, QueueWorkers, QueueMetrics, QueueLifecycle, Retention],
  exports: [Outbox, OutboxRelay, BullModule, Retention],
})
export class QueueModule {}
