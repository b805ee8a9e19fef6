import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { validateEnv } from '../../src/config/env.schema.js';
import { AppConfig } from '../../src/config/app-config.js';

const STRONG_JWT_SECRET = randomBytes(32).toString('hex');
const STRONG_KEY = randomBytes(32).toString('base64');

describe('configuration', () => {
  it('gives the documented defaults', () => {
    const env = validateEnv({ JWT_SECRET: 'x'.repeat(32) });
    const config = new AppConfig(env);
    assert.equal(config.http.port, 3000);
    assert.equal(config.http.publicBaseUrl, 'http://localhost:3000');
    assert.equal(config.database.url, 'postgres://postgres@127.0.0.1:5432/messaging');
    assert.equal(config.redis.url, 'redis://127.0.0.1:6379');
    assert.equal(config.role, 'all');
    assert.equal(config.database.migrationsRun, true);
    assert.equal(config.seedDemo, true);
    assert.equal(config.auth.jwtExpiresInSeconds, 3600);
    assert.deepEqual(config.webhooks.retryScheduleMs, [120_000, 240_000, 480_000, 960_000, 1_920_000]);
    assert.equal(config.webhooks.allowPrivateNetworks, false);
    assert.equal(config.rateLimits.requestsPerMinute, 600);
    assert.equal(config.http.bodyLimitBytes, 20 * 1024 * 1024);
    assert.equal(config.rateLimits.unauthenticatedRequestsPerMinute, 300);
    assert.equal(config.http.trustProxy, false);
    assert.deepEqual(config.corsOrigins, []);
  });

  it('reads TRUST_PROXY as a boolean or a list of proxy addresses and ranges', () => {
    const trustProxy = (value: string) => new AppConfig(validateEnv({ TRUST_PROXY: value })).http.trustProxy;
    assert.equal(trustProxy('true'), true);
    assert.equal(trustProxy('false'), false);
    assert.deepEqual(trustProxy('10.0.0.0/8, 127.0.0.1,::1'), ['10.0.0.0/8', '127.0.0.1', '::1']);
    for (const bad of ['2', 'yes please', '10.0.0.0/99', 'proxy.internal']) {
      assert.throws(() => validateEnv({ TRUST_PROXY: bad }), /TRUST_PROXY=/, bad);
    }
  });

  it('reads the retention of the growing tables as durations, 7 d / 30 d / 7 d by default', () => {
    const defaults = new AppConfig(validateEnv({})).retention;
    assert.deepEqual(defaults, {
      outboxMs: 7 * 86_400_000,
      webhookDeliveriesMs: 30 * 86_400_000,
      sandboxMessagesMs: 7 * 86_400_000,
      intervalMs: 600_000,
      batchSize: 1000,
    });
    const custom = new AppConfig(validateEnv({ OUTBOX_RETENTION: '36h', RETENTION_INTERVAL: '30s' })).retention;
    assert.equal(custom.outboxMs, 36 * 3_600_000);
    assert.equal(custom.intervalMs, 30_000);
    for (const [name, bad] of [
      ['OUTBOX_RETENTION', '7 days'],
      ['WEBHOOK_DELIVERY_RETENTION', '-1d'],
      ['RETENTION_INTERVAL', '500ms'],
      ['RETENTION_BATCH_SIZE', '0'],
    ]) {
      assert.throws(() => validateEnv({ [name]: bad }), new RegExp(`${name}=`), `${name}=${bad}`);
    }
  });

  it('names every bad variable in one error', () => {
    assert.throws(
      () => validateEnv({ PORT: 'eighty', APP_ROLE: 'both', DATABASE_URL: 'mysql://x', WEBHOOK_RETRY_SCHEDULE: '2 minutes' }),
      (err: Error) => {
        for (const name of ['PORT', 'APP_ROLE', 'DATABASE_URL', 'WEBHOOK_RETRY_SCHEDULE'])
          assert.match(err.message, new RegExp(`\\b${name}=`));
        return true;
      },
    );
  });

  it('requires JWT_SECRET and ENCRYPTION_KEY in production, and no demo seed there', () => {
    assert.throws(() => validateEnv({ NODE_ENV: 'production' }), /JWT_SECRET/);
    assert.throws(() => validateEnv({ NODE_ENV: 'production', JWT_SECRET: STRONG_JWT_SECRET }), /ENCRYPTION_KEY/);
    const config = new AppConfig(validateEnv({ NODE_ENV: 'production', JWT_SECRET: STRONG_JWT_SECRET, ENCRYPTION_KEY: STRONG_KEY }));
    assert.equal(config.seedDemo, false);
    assert.equal(config.encryptionKey?.length, 32);
  });

  it('refuses in production the secrets this repository published, placeholders and keys of repeated bytes, naming each', () => {
    const production = {
      NODE_ENV: 'production',
      JWT_SECRET: STRONG_JWT_SECRET,
      ENCRYPTION_KEY: STRONG_KEY,
      ADMIN_API_KEY: 'k7Qm2pXv9rTz4LwB',
    };
    assert.doesNotThrow(() => validateEnv(production));
    const refused: Array<[string, string]> = [
      ['ENCRYPTION_KEY', '0'.repeat(64)],
      ['ENCRYPTION_KEY', 'ab'.repeat(32)],
      ['ENCRYPTION_KEY', Buffer.alloc(32, 7).toString('base64')],
      ['JWT_SECRET', 'change-me-to-a-long-random-secret-please'],
      ['JWT_SECRET', 'y'.repeat(40)],
      ['JWT_SECRET', 'my-production-secret-CHANGEME-0123456789'],
      ['ADMIN_API_KEY', 'change-me-admin-key'],
      ['ADMIN_API_KEY', 'abababababababababab'],
    ];
    for (const [name, value] of refused) {
      assert.throws(
        () => validateEnv({ ...production, [name]: value }),
        (err: Error) => err.message.startsWith('Invalid configuration:') && new RegExp(`^  ${name}: .*openssl rand`, 'm').test(err.message),
        `${name}=${value}`,
      );
    }
    // Outside production the same values start (development and tests use short fixed secrets).
    assert.doesNotThrow(() => validateEnv({ JWT_SECRET: 'y'.repeat(40), ENCRYPTION_KEY: '0'.repeat(64) }));
  });

  it('reads CORS_ORIGINS as none, *, or a list of origins, and refuses anything else', () => {
    const corsOrigins = (value?: string) => new AppConfig(validateEnv({ CORS_ORIGINS: value })).corsOrigins;
    assert.deepEqual(corsOrigins(undefined), []);
    assert.deepEqual(corsOrigins(' '), []);
    assert.equal(corsOrigins('*'), '*');
    assert.deepEqual(corsOrigins('https://App.example.com, http://localhost:5173'), ['https://app.example.com', 'http://localhost:5173']);
    for (const bad of [
      'https://app.example.com/',
      'https://app.example.com/path',
      'app.example.com',
      'ftp://files.example.com',
      'https://a.example.com,*',
    ]) {
      assert.throws(() => validateEnv({ CORS_ORIGINS: bad }), /CORS_ORIGINS=.*comma-separated list of origins/, bad);
    }
  });

  it('reads booleans and integers from strings', () => {
    const config = new AppConfig(
      validateEnv({ MIGRATIONS_RUN: 'false', SEED_DEMO: '1', PORT: '8080', WEBHOOK_RETRY_SCHEDULE: '1s,500ms' }),
    );
    assert.equal(config.database.migrationsRun, false);
    assert.equal(config.seedDemo, true);
    assert.equal(config.http.port, 8080);
    assert.deepEqual(config.webhooks.retryScheduleMs, [1000, 500]);
  });
});
