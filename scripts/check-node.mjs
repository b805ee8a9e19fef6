// Refuses a Node.js older than package.json's `engines.node` before anything is built or started, with a
// message that says what to do. Several dependencies declare Node 22 or later (nestjs-pino, file-type,
// range-parser, …), Node 20 reached its end of life in April 2026, and a build on it fails in ways that do
// not name the cause. Run directly (`node scripts/check-node.mjs`) or imported by scripts/start.mjs.
import { readFileSync } from 'node:fs';
import { URL, fileURLToPath } from 'node:url';

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
/** The lowest version `engines.node` allows (the project writes it as `>=MAJOR.MINOR.PATCH`). */
const minimum = /^>=\s*(\d+)\.(\d+)\.(\d+)$/.exec(manifest.engines.node.trim());
if (!minimum) throw new Error(`package.json engines.node must read ">=X.Y.Z", not ${JSON.stringify(manifest.engines.node)}`);

/** True when `version` ("24.1.0") is at least the minimum. */
export function nodeIsSupported(version) {
  const have = version.split('.').map(Number);
  const need = minimum.slice(1).map(Number);
  for (let i = 0; i < 3; i++) if (have[i] !== need[i]) return have[i] > need[i];
  return true;
}

export function refuseUnsupportedNode() {
  const version = process.versions.node;
  if (nodeIsSupported(version)) return;
  console.error(
    [
      `This service needs Node.js ${manifest.engines.node.replace('>=', '')} or later; this is Node.js ${version} (${process.execPath}).`,
      'Node.js 24 LTS is the version it is tested on. To get it without touching the system Node.js:',
      '  npm install --prefix ~/.node24 node@24 && export PATH=~/.node24/node_modules/node/bin:$PATH',
      '(or `nvm install 24`, or your package manager), then run `npm ci` again and retry.',
    ].join('\n'),
  );
  process.exit(1);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) refuseUnsupportedNode();
