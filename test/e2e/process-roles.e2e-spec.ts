import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { deleteRedisKeys } from '../support/redis-keys.js';
import { dropDatabase } from '../../src/database/ensure-database.js';
import { waitFor } from '../support/fixtures.js';
import { freePort } from '../support/free-port.js';

const MAIN = 'dist/src/main.js';

interface Started {
  child: ChildProcess;
  output: () => string;
  exit: Promise<number | null>;
}

function startMain(env: Record<string, string>): Started {
  let output = '';
  const child = spawn(process.execPath, [MAIN], { env: { ...process.env, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exit };
}

describe('Boot, roles and graceful shutdown of the real process', () => {
  const databaseUrl = `postgres://postgres@127.0.0.1:5432/msg_test_roles_${randomBytes(4).toString('hex')}`;
  const baseEnv = {
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    REDIS_KEY_PREFIX: `msgtest:roles:${randomBytes(4).toString('hex')}`,
    JWT_SECRET: randomBytes(32).toString('hex'),
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    HOST: '127.0.0.1',
  };
  after(async () => {
    await dropDatabase(databaseUrl);
    await deleteRedisKeys(baseEnv.REDIS_KEY_PREFIX);
  });

  it('refuses to boot on bad configuration, naming the variable', async () => {
    const run = startMain({ ...baseEnv, PORT: 'eighty', APP_ROLE: 'sideways' });
    const code = await run.exit;
    assert.notEqual(code, 0);
    assert.match(run.output(), /PORT=/);
    assert.match(run.output(), /APP_ROLE=/);
  });

  it('creates the database, migrates, seeds the demo once and prints its credentials; SIGTERM exits cleanly', async () => {
    const port = await freePort();
    const run = startMain({ ...baseEnv, PORT: String(port), SEED_DEMO: 'true', APP_ROLE: 'all' });
    await waitFor(
      async () => (await fetch(`http://127.0.0.1:${port}/health/ready`).catch(() => undefined))?.status === 200,
      30_000,
      'the API',
    );
    await waitFor(async () => /client_secret:/.test(run.output()), 10_000, 'demo credentials');
    const clientId = /client_id:\s+(\S+)/.exec(run.output())![1];
    const clientSecret = /client_secret:\s+(\S+)/.exec(run.output())![1];
    const token = await fetch(`http://127.0.0.1:${port}/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
    });
    assert.equal(token.status, 200);
    const { access_token } = (await token.json()) as { access_token: string };
    const channels = await fetch(`http://127.0.0.1:${port}/v1/channels/service-account`, {
      headers: { authorization: `Bearer ${access_token}` },
    });
    const page = (await channels.json()) as { totalCount: number };
    assert.equal(page.totalCount, 1, 'the demo sandbox channel');
    assert.ok(!run.output().includes(access_token), 'tokens are not logged');

    // A request in flight when SIGTERM arrives still gets its answer.
    const inFlight = fetch(`http://127.0.0.1:${port}/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
    });
    await new Promise((resolve) => setTimeout(resolve, 15));
    run.child.kill('SIGTERM');
    assert.equal((await inFlight).status, 200);
    assert.equal(await run.exit, 0);

    // A second start finds the demo workspace and seeds nothing.
    const again = startMain({ ...baseEnv, PORT: String(port), SEED_DEMO: 'true', APP_ROLE: 'all' });
    await waitFor(
      async () => (await fetch(`http://127.0.0.1:${port}/health/live`).catch(() => undefined))?.status === 200,
      30_000,
      'the API again',
    );
    again.child.kill('SIGTERM');
    assert.equal(await again.exit, 0);
    assert.ok(!again.output().includes('client_secret:'), 'seeded only once');
  });

  it('runs a worker that serves no HTTP, and an API that processes no jobs', async () => {
    const port = await freePort();
    const worker = startMain({ ...baseEnv, PORT: String(port), APP_ROLE: 'worker', SEED_DEMO: 'false' });
    await waitFor(async () => /Worker started/.test(worker.output()), 30_000, 'the worker');
    const refused = await fetch(`http://127.0.0.1:${port}/health/live`).then(
      () => 'answered',
      () => 'refused',
    );
    assert.equal(refused, 'refused');
    assert.match(worker.output(), /Processing \d+ job type/);
    worker.child.kill('SIGTERM');
    assert.equal(await worker.exit, 0);

    const api = startMain({ ...baseEnv, PORT: String(port), APP_ROLE: 'api', SEED_DEMO: 'false' });
    await waitFor(
      async () => (await fetch(`http://127.0.0.1:${port}/health/live`).catch(() => undefined))?.status === 200,
      30_000,
      'the API',
    );
    assert.doesNotMatch(api.output(), /Processing \d+ job type/);
    api.child.kill('SIGTERM');
    assert.equal(await api.exit, 0);
  });
});
