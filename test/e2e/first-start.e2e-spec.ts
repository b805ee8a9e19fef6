import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { dropDatabase } from '../../src/database/ensure-database.js';
import { waitFor } from '../support/fixtures.js';
import { freePort } from '../support/free-port.js';
import { deleteRedisKeys } from '../support/redis-keys.js';
import { baseTestEnv } from '../support/test-app.js';

const LAST_LINE_OF_BLOCK = /^Swagger UI: {3}\S+$/m;

describe('a first start (npm start, development logs)', () => {
  const runId = `${process.pid}_${randomBytes(4).toString('hex')}`;
  const databaseUrl = `postgres://postgres@127.0.0.1:5432/msg_test_${runId}`;
  const redisPrefix = `msgtest:${runId}`;
  let stdout = '';
  let stopped: Promise<unknown> | undefined;

  after(async () => {
    await stopped;
    await dropDatabase(databaseUrl);
    await deleteRedisKeys(redisPrefix, process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  });

  it('prints a handful of lines, then where the API listens, then the demo credentials last', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, ['dist/src/main.js'], {
      env: {
        ...process.env,
        ...baseTestEnv(databaseUrl, redisPrefix),
        SEED_DEMO: 'true',
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        LOG_PRETTY: 'true',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    stopped = new Promise((resolve) => child.on('exit', resolve));
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    try {
      await waitFor(async () => LAST_LINE_OF_BLOCK.test(stdout), 60_000, 'the demo credentials');
    } finally {
      child.kill('SIGTERM');
    }
    const url = `http://127.0.0.1:${port}`;
    const printed = stdout.slice(0, stdout.search(LAST_LINE_OF_BLOCK)).trimEnd().split('\n');
    const credentialsStart = printed.indexOf('Demo workspace created. These credentials are shown only once:');
    const listening = printed.findIndex((line) => line.endsWith(`[Bootstrap] API on ${url}, Swagger UI at ${url}/docs, role=all`));
    assert.ok(listening >= 0 && credentialsStart > listening, stdout);
    const logLines = printed.slice(0, credentialsStart).filter((line) => / (INFO|WARN|ERROR): /.test(line));
    assert.ok(logLines.length <= 6, logLines.join('\n'));
    assert.doesNotMatch(stdout, /InstanceLoader|RoutesResolver|RouterExplorer/);
    // Another engineer's test reads the values after these labels.
    const block = printed.slice(credentialsStart).join('\n');
    assert.match(block, /^ {2}client_id: {6}sa_\S+$/m);
    assert.match(block, /^ {2}client_secret: {2}\S+$/m);
    assert.match(block, /^ {2}webhook secret: whsec_\S+$/m);
    assert.match(block, /^Demo channel id \(the request examples' channelId\): 01\S+$/m);
    assert.match(block, new RegExp(`^Get a token: {2}curl -s -X POST ${url}/connect/token `, 'm'));
    assert.match(stdout, new RegExp(`^Swagger UI: {3}${url}/docs$`, 'm'));
  });
});
