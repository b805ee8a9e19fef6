// `npm start`: builds when the compiled output is missing or older than the sources, then runs the service.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const entry = 'dist/src/main.js';

function newestMtime(dir) {
  let newest = 0;
  for (const name of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, name.name);
    newest = Math.max(newest, name.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

const stale = !existsSync(entry) || ['src', 'migrations'].some((dir) => newestMtime(dir) > statSync(entry).mtimeMs);
if (stale) execSync('npx nest build', { stdio: 'inherit' });

// `npm start` is the local demo: let its webhooks reach receivers on this machine (http://localhost:4000/…)
// unless told otherwise. Deployments (start:prod, the Docker image) keep the default, private networks refused.
if (process.env.NODE_ENV !== 'production' && process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS === undefined) {
  process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS = 'true';
  console.log('npm start: webhooks may reach private and loopback addresses (WEBHOOK_ALLOW_PRIVATE_NETWORKS=true)');
}
await import(`../${entry}`);
