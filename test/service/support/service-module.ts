import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { Global, Module, type DynamicModule, type Type } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test, type TestingModule } from '@nestjs/testing';
import { getQueueToken } from '@nestjs/bull';
import { TypeOrmModule } from '@nestjs/typeorm';
import { transactionsModule } from '../../../src/database/transactions.js';
import { LoggerModule } from 'nestjs-pino';
import { DataSource } from 'typeorm';
import { CommonModule } from '../../../src/common/common.module.js';
import { IdempotencyModule } from '../../../src/common/idempotency/idempotency.module.js';
import { MetricsModule } from '../../../src/metrics/metrics.module.js';
import { RateLimitingModule } from '../../../src/rate-limiting/rate-limiting.module.js';
import { AppConfig } from '../../../src/config/app-config.js';
import { AppConfigModule } from '../../../src/config/config.module.js';
import { resetConfig } from '../../../src/config/load-config.js';
import { dropDatabase, ensureDatabase } from '../../../src/database/ensure-database.js';
import { runMigrations } from '../../../src/database/run-migrations.js';
import { typeormOptions } from '../../../src/database/typeorm-options.js';
import { deleteRedisKeys } from '../../support/redis-keys.js';
import { Outbox, type OutboxRow } from '../../../src/queue/outbox.service.js';
import { OutboxRelay } from '../../../src/queue/outbox.relay.js';
import { Retention } from '../../../src/queue/retention.service.js';
import { ALL_QUEUES } from '../../../src/queue/queue-names.js';

/**
 * Stands in for the outbox relay: services still write their outbox rows in the real database (in
 * their transactions); what would be pushed to Bull is recorded here instead.
 */
export class RecordingRelay {
  readonly pushed: OutboxRow[] = [];
  kicks = 0;
  pushCommitted(rows: OutboxRow[]): void {
    this.pushed.push(...rows);
  }
  kick(): void {
    this.kicks++;
  }
  markCompleted(): Promise<void> {
    return Promise.resolve();
  }
}

/** A queue that records what is added to it (for services that schedule repeatable jobs themselves). */
class RecordingQueue {
  readonly added: unknown[] = [];
  constructor(readonly name: string) {}
  add(...args: unknown[]): Promise<{ id: string }> {
    this.added.push(args);
    return Promise.resolve({ id: String(this.added.length) });
  }
  getRepeatableJobs(): Promise<unknown[]> {
    return Promise.resolve([]);
  }
  removeRepeatableByKey(): Promise<void> {
    return Promise.resolve();
  }
}

/** The queue layer without Redis: the real Outbox over a recording relay, the real Retention, and recording queues. */
@Global()
@Module({
  imports: [DiscoveryModule],
  providers: [
    RecordingRelay,
    { provide: OutboxRelay, useExisting: RecordingRelay },
    Outbox,
    Retention,
    ...ALL_QUEUES.map((name) => ({ provide: getQueueToken(name), useValue: new RecordingQueue(name) })),
  ],
  exports: [Outbox, OutboxRelay, RecordingRelay, Retention, ...ALL_QUEUES.map((name) => getQueueToken(name))],
})
class StubQueueModule {}

export interface ServiceTestContext {
  module: TestingModule;
  dataSource: DataSource;
  relay: RecordingRelay;
  get<T>(type: Type<T>): T;
  close(): Promise<void>;
}

/**
 * The service test tier: the given feature modules against a freshly created and migrated
 * PostgreSQL database of their own, with the queues stubbed (jobs are still written to the outbox
 * table), no HTTP. The global modules every feature may use (config, logging, common, metrics, idempotency, rate limiting: guards on feature controllers use it) are there too. Services are called directly, as their controllers or processors would.
 */
export async function serviceTestModule(
  imports: Array<Type<unknown> | DynamicModule>,
  env: Record<string, string> = {},
): Promise<ServiceTestContext> {
  const runId = `${process.pid}_${randomBytes(4).toString('hex')}`;
  const databaseUrl = `postgres://postgres@127.0.0.1:5432/msg_svc_${runId}`;
  const redisPrefix = `msgtest:svc:${runId}`;
  Object.assign(process.env, {
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    REDIS_KEY_PREFIX: redisPrefix,
    JWT_SECRET: randomBytes(32).toString('hex'),
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    SEED_DEMO: 'false',
    APP_ROLE: 'api',
    ...env,
  });
  resetConfig();
  await ensureDatabase(databaseUrl);
  await runMigrations(databaseUrl);
  const module = await Test.createTestingModule({
    imports: [
      AppConfigModule,
      LoggerModule.forRoot({ pinoHttp: { level: process.env.TEST_LOG_LEVEL ?? 'silent' } }),
      TypeOrmModule.forRootAsync({ inject: [AppConfig], useFactory: (config: AppConfig) => typeormOptions(config.database.url, 10) }),
      transactionsModule(),
      CommonModule,
      MetricsModule,
      StubQueueModule,
      IdempotencyModule,
      RateLimitingModule,
      ...imports,
    ],
  }).compile();
  await module.init();
  return {
    module,
    dataSource: module.get(DataSource),
    relay: module.get(RecordingRelay),
    get: <T>(type: Type<T>) => module.get(type, { strict: false }),
    async close() {
      await module.close();
      await dropDatabase(databaseUrl);
      // The rate limiter's and the governor's keys (the queues are stubbed here) would otherwise wait for their TTLs.
      await deleteRedisKeys(redisPrefix).catch((err: Error) => console.warn(`Redis keys under ${redisPrefix} not deleted: ${err.message}`));
    },
  };
}
