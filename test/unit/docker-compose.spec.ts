import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { REPO_ROOT } from '../support/fresh-clone.js';

interface ComposeService {
  image?: string;
  build?: string;
  restart?: string;
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
  environment?: Record<string, string>;
}

const compose = parse(readFileSync(join(REPO_ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, ComposeService>;
};
const { api, worker } = compose.services;
const LONG_RUNNING = ['postgres', 'redis', 'minio', 'api', 'worker'];

/** Docker cannot run here, so what makes `docker compose up` come up in order is checked in the file. */
describe('docker-compose.yml', () => {
  it('starts a worker only once the API is healthy, and the API is healthy only once migrations ran (/health/ready)', () => {
    assert.deepEqual(worker.depends_on?.api, { condition: 'service_healthy' });
    assert.match(api.healthcheck?.test.join(' ') ?? '', /http:\/\/127\.0\.0\.1:3000\/health\/ready/);
    for (const dependency of ['postgres', 'redis']) assert.deepEqual(api.depends_on?.[dependency], { condition: 'service_healthy' });
  });

  it('lets the worker migrate under the advisory lock too, should it get there first', () => {
    assert.notEqual(worker.environment?.MIGRATIONS_RUN, 'false');
  });

  it('restarts every long-running service', () => {
    for (const name of LONG_RUNNING) assert.equal(compose.services[name].restart, 'unless-stopped', name);
  });

  it('has no default for a secret: compose refuses to start without them, naming each', () => {
    const raw = readFileSync(join(REPO_ROOT, 'docker-compose.yml'), 'utf8');
    for (const name of ['JWT_SECRET', 'ADMIN_API_KEY', 'ENCRYPTION_KEY']) {
      assert.match(raw, new RegExp(`${name}: \\$\\{${name}:\\?set ${name} in \\.env`), name);
      assert.equal(api.environment?.[name], worker.environment?.[name], `${name} is the same for the API and the worker`);
    }
  });

  it('keeps .env and local state out of the image’s build context', () => {
    const ignored = readFileSync(join(REPO_ROOT, '.dockerignore'), 'utf8').split('\n');
    for (const entry of ['.env', 'node_modules', 'dist', 'storage', '.git']) assert.ok(ignored.includes(entry), entry);
  });
});
