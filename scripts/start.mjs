// `npm start`: refuses an unsupported Node.js, builds (`npm run build`, as `npm test` and the Dockerfile
// do) when the compiled output is missing or older than the sources, then runs the service.
import { execSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { refuseUnsupportedNode } from './check-node.mjs';

refuseUnsupportedNode();

const entry = 'dist/src/main.js';

function newestMtime(dir) {
  let newest = 0;
  for (const name of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, name.name);
    newest = Math.max(newest, name.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

// Everything `npm run build` compiles: the service, and the TypeScript client that the tests import.
const SOURCES = ['src', 'migrations', 'test', 'bench', 'scripts', 'clients/typescript/src'];
const CLIENT_ENTRY = 'clients/typescript/dist/index.js';
// tsc's incremental state is written by every build, even one that rewrote no output file.
const BUILD_INFO = 'dist/.tsbuildinfo';
const builtAt = () => Math.max(...[entry, BUILD_INFO].filter((file) => existsSync(file)).map((file) => statSync(file).mtimeMs));
const stale = !existsSync(entry) || !existsSync(CLIENT_ENTRY) || SOURCES.some((dir) => newestMtime(dir) > builtAt());
if (stale) execSync('npm run build', { stdio: 'inherit' });

// `npm start` is the local demo. Outside production it fills in what trying the service needs, unless
// the environment (or .env) sets it: an admin key (kept in STORAGE_DIR/.dev-admin-key, so it survives
// restarts), webhooks that may reach receivers on this machine (http://localhost:4000/…), and readable
// logs. Deployments (start:prod, the Docker image) get none of this: admin API off, private networks
// refused, JSON logs.
/** A file under STORAGE_DIR holding a development secret, made on first use; returns its path. */
function devSecret(name, make) {
  const file = join(process.env.STORAGE_DIR || './storage', name);
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${make()}\n`, { mode: 0o600 });
  }
  return file;
}

if (existsSync('.env')) process.loadEnvFile('.env'); // as the service reads it: real variables win
if (process.env.NODE_ENV !== 'production') {
  const set = [];
  if (!process.env.ADMIN_API_KEY) {
    const keyFile = devSecret('.dev-admin-key', () => `dev-${randomBytes(18).toString('base64url')}`);
    process.env.ADMIN_API_KEY = readFileSync(keyFile, 'utf8').trim();
    set.push(`ADMIN_API_KEY=${process.env.ADMIN_API_KEY} (admin API on; the key is kept in ${keyFile})`);
  }
  if (!process.env.JWT_SECRET) {
    // Tokens survive a restart of the demo (a random secret per process would void them).
    const secretFile = devSecret('.dev-jwt-secret', () => randomBytes(32).toString('hex'));
    process.env.JWT_SECRET = readFileSync(secretFile, 'utf8').trim();
    set.push(`JWT_SECRET from ${secretFile} (tokens survive restarts)`);
  }
  if (process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS === undefined) {
    process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS = 'true';
    set.push('WEBHOOK_ALLOW_PRIVATE_NETWORKS=true (webhooks may reach localhost and private addresses)');
  }
  if (process.env.LOG_PRETTY === undefined) {
    process.env.LOG_PRETTY = 'true';
    set.push('LOG_PRETTY=true (readable logs)');
  }
  if (set.length > 0) {
    console.log(
      `npm start (development) sets:\n${set.map((line) => `  ${line}`).join('\n')}\nSet them yourself (or NODE_ENV=production) to change this.`,
    );
  }
}
await import(`../${entry}`);
