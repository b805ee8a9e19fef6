// Runs the compiled unit, service and e2e tests with Node's test runner, one file at a time (each e2e
// file boots the app against its own database). Each file gets its own process and a time limit, so a
// file that hangs (a boot that fails and leaves connections open, say) fails alone instead of holding
// the whole run until CI gives up on it.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const FILE_TIME_LIMIT_MS = Number(process.env.TEST_FILE_TIME_LIMIT_MS ?? 8 * 60_000);
/** The first-run test installs and builds a clone once per Node.js on the machine: it gets longer. */
const LONGER_LIMITS = [{ pattern: /first-run/, ms: 20 * 60_000 }];
const timeLimitOf = (file) => LONGER_LIMITS.find((l) => l.pattern.test(file))?.ms ?? FILE_TIME_LIMIT_MS;
const TEST_TIME_LIMIT_MS = Number(process.env.TEST_TIME_LIMIT_MS ?? 5 * 60_000);

function find(dir, pattern) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && pattern.test(entry.name))
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name))
    .sort();
}

function runFile(file) {
  return new Promise((resolve) => {
    const args = ['--test', '--test-force-exit', `--test-timeout=${TEST_TIME_LIMIT_MS}`, '--test-reporter=spec', file];
    const child = spawn(process.execPath, args, { stdio: 'inherit', detached: true, env: { ...process.env, NODE_ENV: 'test' } });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      console.error(`\n✖ ${file} did not finish within ${timeLimitOf(file) / 1000} s: killed`);
      try {
        process.kill(-child.pid, 'SIGKILL'); // the whole group: the file and any server it started
      } catch {
        child.kill('SIGKILL');
      }
    }, timeLimitOf(file));
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ file, ok: !timedOut && code === 0, code, signal, timedOut });
    });
  });
}

const filter = process.argv[2];
const files = [...find('dist/test', /[.-]spec\.js$/), ...find('dist/src', /[.-]spec\.js$/)].filter((f) => !filter || f.includes(filter));
if (files.length === 0) {
  console.error('No test files found: run `npm run build` first.');
  process.exit(1);
}

const started = Date.now();
const failed = [];
for (const file of files) {
  const result = await runFile(file);
  if (!result.ok) failed.push(result);
}
const minutes = ((Date.now() - started) / 60_000).toFixed(1);
console.log(`\n${files.length} test files in ${minutes} min: ${files.length - failed.length} passed, ${failed.length} failed`);
for (const { file, code, signal, timedOut } of failed) {
  console.log(`✖ ${file} (${timedOut ? 'time limit' : signal ? `signal ${signal}` : `exit code ${code}`})`);
}
process.exit(failed.length === 0 ? 0 : 1);
