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
await import(`../${entry}`);
