// Runs the compiled unit and e2e tests with Node's test runner, one file at a time
// (each e2e file boots the app against its own database).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

function find(dir, pattern) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && pattern.test(entry.name))
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name))
    .sort();
}

const filter = process.argv[2];
const files = [...find('dist/test', /[.-]spec\.js$/), ...find('dist/src', /[.-]spec\.js$/)].filter((f) => !filter || f.includes(filter));
if (files.length === 0) {
  console.error('No test files found: run `npm run build` first.');
  process.exit(1);
}
const result = spawnSync(process.execPath, ['--test', '--test-concurrency=1', '--test-reporter=spec', ...files], {
  stdio: 'inherit',
  env: { ...process.env, NODE_ENV: 'test' },
});
process.exit(result.status ?? 1);
