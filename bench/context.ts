import { resolve } from 'node:path';
import { Client } from 'pg';
import { randomBytes } from 'node:crypto';
import { freePort, NodeProcess } from './harness.js';
import { FakeCloudApi } from './fake-cloud-api.js';

export const ADMIN_KEY = 'bench-admin-key-0123456789';

/** The production build under test, against a scratch database, and a logged-in workspace. */
export interface BenchContext {
  api: NodeProcess;
  /** The environment the API runs with (scenarios start workers with the same). */
  env: Record<string, string>;
  /** Node options of the scenarios' worker processes (`nodeArgs` and BENCH_WORKER_NODE_ARGS). */
  workerNodeArgs: string[];
  /** The build the API and the scenarios' workers run (`dist/src/main.js` of BENCH_API_DIR, or of this checkout). */
  mainScript: string;
  apiUrl: string;
  databaseUrl: string;
  jwtSecret: string;
  workspaceId: string;
  token: string;
  admin(method: string, path: string, body?: unknown): Promise<any>;
  /** The WhatsApp Cloud API stand-in the API and workers talk to. */
  cloudApi: FakeCloudApi;
  /** State scenarios hand on to later ones (e.g. the seeded contacts). */
  shared: Map<string, unknown>;
  call(method: string, path: string, body?: unknown): Promise<any>;
}

/** `apiEnv`: settings of the selected scenarios for the API process (see Scenario.apiEnv). */
export async function startContext(apiEnv: Record<string, string> = {}): Promise<BenchContext> {
  const cloudApi = await FakeCloudApi.start();
  const databaseUrl = `postgres://postgres@127.0.0.1:5432/msg_bench_${process.pid}`;
  const jwtSecret = randomBytes(32).toString('hex');
  const port = await freePort();
  const apiUrl = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    NODE_ENV: 'production',
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL: apiUrl,
    DATABASE_URL: databaseUrl,
    REDIS_KEY_PREFIX: `msgbench:${process.pid}`,
    JWT_SECRET: jwtSecret,
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    ADMIN_API_KEY: ADMIN_KEY,
    LOG_LEVEL: 'warn',
    SEED_DEMO: 'false',
    RATE_LIMIT_REQUESTS_PER_MINUTE: '1000000000',
    RATE_LIMIT_WHATSAPP_SENDS_PER_SECOND: '1000000000',
    RATE_LIMIT_IVR_CALLS_PER_SECOND: '1000000000',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    WHATSAPP_GRAPH_URL: cloudApi.url,
    ...apiEnv,
  };
  // As `npm run start:prod` runs it.
  const nodeArgs = [`--max-old-space-size=${process.env.HEAP_LIMIT_MB ?? 256}`, `--max-semi-space-size=${process.env.SEMI_SPACE_MB ?? 8}`];
  // BENCH_API_NODE_ARGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`) to look inside the API.
  const apiArgs = [...nodeArgs, ...(process.env.BENCH_API_NODE_ARGS?.split(' ').filter(Boolean) ?? [])];
  // BENCH_WORKER_NODE_ARGS, the same for every scenario's worker process.
  const workerNodeArgs = [...nodeArgs, ...(process.env.BENCH_WORKER_NODE_ARGS?.split(' ').filter(Boolean) ?? [])];
  // BENCH_API_DIR: measure another build's API (a checkout with its own `dist/`) with this bench,
  // e.g. the code before a change, against the same baselines.
  const apiScript = resolve(process.env.BENCH_API_DIR ?? '.', 'dist/src/main.js');
  const api = NodeProcess.start(apiScript, { ...env, APP_ROLE: 'api' }, apiArgs);
  await api.waitForHttp(`${apiUrl}/health/ready`);
  const request = async (auth: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${auth}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  const admin = (method: string, path: string, body?: unknown) => request(ADMIN_KEY, method, path, body);
  const workspace = await admin('POST', '/admin/v1/workspaces', { name: 'Bench' });
  const account = await admin('POST', `/admin/v1/workspaces/${workspace.id}/service-accounts`, { name: 'bench' });
  const tokenRes = await fetch(`${apiUrl}/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: account.clientId, client_secret: account.clientSecret }),
  });
  const token = ((await tokenRes.json()) as { access_token: string }).access_token;
  await settle(databaseUrl);
  return {
    api,
    env,
    workerNodeArgs,
    mainScript: apiScript,
    apiUrl,
    databaseUrl,
    jwtSecret,
    workspaceId: workspace.id,
    token,
    admin,
    call: (method, path, body) => request(token, method, path, body),
    shared: new Map(),
    cloudApi,
  };
}

/** Spawns a worker process of the measured build with the API's environment (and `env` over it). */
export function spawnWorker(ctx: BenchContext, env: Record<string, string> = {}): NodeProcess {
  return NodeProcess.start(
    ctx.mainScript,
    { ...ctx.env, APP_ROLE: 'worker', MIGRATIONS_RUN: 'false', LOG_LEVEL: 'info', ...env },
    ctx.workerNodeArgs,
  );
}

/** {@link spawnWorker}, resolving once the worker has started. */
export async function startWorker(ctx: BenchContext, env: Record<string, string> = {}): Promise<NodeProcess> {
  const worker = spawnWorker(ctx, env);
  const deadline = Date.now() + 30_000;
  while (!/Worker started/.test(worker.log) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  return worker;
}

/**
 * Creating the scratch database and migrating it (or dropping the previous run's) leaves PostgreSQL
 * flushing in the background; on 2 cores that showed as a halved first scenario. Checkpoint, then
 * give the machine a moment before anything is measured.
 */
export async function settle(databaseUrl: string): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('CHECKPOINT');
  await client.end();
  await new Promise((resolve) => setTimeout(resolve, 3000));
}
