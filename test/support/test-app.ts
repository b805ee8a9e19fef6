import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createApp, type CreateAppOptions } from '../../src/create-app.js';
import { resetConfig } from '../../src/config/load-config.js';
import { dropDatabase } from '../../src/database/ensure-database.js';
import { HttpClient } from './http-client.js';
import { deleteRedisKeys } from './redis-keys.js';

export const ADMIN_KEY = 'test-admin-key-0123456789';

const ORIGINAL_ENV = { ...process.env };

/** Each app starts from the environment the test process began with, plus its own overrides. */
function resetEnv(values: Record<string, string>): void {
  for (const key of Object.keys(process.env)) if (!(key in ORIGINAL_ENV)) delete process.env[key];
  Object.assign(process.env, ORIGINAL_ENV, values);
}

export interface TestApp {
  app: NestFastifyApplication;
  baseUrl: string;
  http: HttpClient;
  admin: HttpClient;
  databaseUrl: string;
  redisPrefix: string;
  close(): Promise<void>;
}

/**
 * What every process of a test runs with: its own database and Redis key prefix, fresh secrets,
 * no demo data. Meta's pair rate would hold every back-to-back message to one number 6 s; the send
 * governor's own tests turn it back on.
 */
export function baseTestEnv(databaseUrl: string, redisPrefix: string): Record<string, string> {
  return {
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    REDIS_KEY_PREFIX: redisPrefix,
    ADMIN_API_KEY: ADMIN_KEY,
    JWT_SECRET: randomBytes(32).toString('hex'),
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    HOST: '127.0.0.1',
    SEED_DEMO: 'false',
    WHATSAPP_PAIR_RATE_INTERVAL_MS: '0',
  };
}

/**
 * Boots the real AppModule on Fastify, listening on 127.0.0.1, against a fresh PostgreSQL
 * database (created and migrated here, dropped on close) and its own Redis key prefix (deleted on close).
 */
export async function startTestApp(testEnv: Record<string, string> = {}, options: CreateAppOptions = {}): Promise<TestApp> {
  const { DATABASE_SERVER_URL, ...env } = testEnv;
  const runId = `${process.pid}_${randomBytes(4).toString('hex')}`;
  // A test with a private PostgreSQL cluster names its own server; the database is still this run's.
  const server = DATABASE_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432';
  // A test that boots a second app on the first one's database and Redis prefix names them: this
  // app then drops and deletes those on close (the first was closed without them).
  const databaseUrl = env.DATABASE_URL ?? `${server}/msg_test_${runId}`;
  const redisPrefix = env.REDIS_KEY_PREFIX ?? `msgtest:${runId}`;
  resetEnv({
    ...baseTestEnv(databaseUrl, redisPrefix),
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    PORT: '0',
    OUTBOX_POLL_INTERVAL_MS: '200',
    ...env,
  });
  resetConfig();
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const app = await createApp(options);
  // PORT may name a port chosen in advance, when PUBLIC_BASE_URL must point at this app.
  await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
  const address = app.getHttpServer().address() as { port: number };
  const baseUrl = `http://127.0.0.1:${address.port}`;
  return {
    app,
    baseUrl,
    databaseUrl,
    redisPrefix,
    http: new HttpClient(baseUrl),
    admin: new HttpClient(baseUrl, ADMIN_KEY),
    async close() {
      await app.close();
      await dropDatabase(databaseUrl);
      // A private Redis a test has already stopped took its keys with it.
      await deleteRedisKeys(redisPrefix, redisUrl).catch((err: Error) =>
        console.warn(`Redis keys under ${redisPrefix} not deleted: ${err.message}`),
      );
    },
  };
}
