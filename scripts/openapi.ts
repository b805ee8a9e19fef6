// `npm run openapi` writes docs/openapi.json from the compiled app; `check` fails when the file is stale.
import 'reflect-metadata';
import { readFileSync, writeFileSync } from 'node:fs';
import { createApp } from '../src/create-app.js';
import { buildOpenApiDocument } from '../src/openapi/openapi-document.js';

const FILE = 'docs/openapi.json';

async function main(mode: string): Promise<void> {
  process.env.LOG_LEVEL ??= 'error';
  process.env.JWT_SECRET ??= 'openapi-generation-only-'.padEnd(40, 'x');
  const app = await createApp({ preview: true });
  const text = `${JSON.stringify(buildOpenApiDocument(app), null, 2)}\n`;
  if (mode === 'check') {
    let current = '';
    try {
      current = readFileSync(FILE, 'utf8');
    } catch {
      /* missing counts as stale */
    }
    if (current !== text) {
      console.error(`${FILE} is stale: run \`npm run build && npm run openapi\` and commit the result.`);
      process.exit(1);
    }
    console.log(`${FILE} is up to date.`);
  } else {
    writeFileSync(FILE, text);
    console.log(`Wrote ${FILE}.`);
  }
  process.exit(0);
}

void main(process.argv[2] ?? 'write');
