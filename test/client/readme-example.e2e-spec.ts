import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { promisify } from 'node:util';
import { describeWithApp } from '../support/describe-with-app.js';
import { createChannel } from '../support/fixtures.js';
import { codeBlocks } from '../support/readme-walkthrough.js';
import { DEMO_TEMPLATES } from '../../src/whatsapp/templates/demo-templates.js';

const run = promisify(execFile);
const README = 'clients/typescript/README.md';

/** The first ```ts block under `## Use`: what an integrator copies (the first-run test runs the same block). */
function useExample(markdown: string): string {
  const [block] = codeBlocks(markdown, '## Use', '## Webhooks', 'ts');
  if (!block) throw new Error(`${README}: no \`\`\`ts block under ## Use`);
  return block;
}

/**
 * The client README's `## Use` example, copied as an integrator copies it into a .mts file and run
 * with `node`, against the state the root README's first hour leaves: the demo's sandbox channel with
 * its templates, and the contact +966501234567 the first hour's inbound message made.
 */
describeWithApp('The client README example, run as written with node', { workspaces: 1 }, (fx) => {
  // Inside the repository, so that `@messaging-service/client` resolves as it does in a clone.
  const dir = mkdtempSync(join(process.cwd(), 'dist', 'readme-example-'));
  const file = join(dir, 'first-client.mts');
  let env: NodeJS.ProcessEnv;

  before(async () => {
    writeFileSync(file, useExample(readFileSync(README, 'utf8')));
    const channel: { id: string } = await createChannel(fx.t, fx.a.workspaceId, { name: 'Demo sandbox' });
    for (const template of DEMO_TEMPLATES) {
      const created = await fx.t.admin.post(`/admin/v1/channels/${channel.id}/templates`, template);
      assert.equal(created.status, 200, created.text);
    }
    const firstHour = await fx.t.admin.post(`/admin/v1/channels/${channel.id}/sandbox/inbound`, {
      fromNumber: '966501234567',
      type: 'text',
      text: 'Hi, where is my order?',
    });
    assert.equal(firstHour.status, 202, firstHour.text);
    env = { ...process.env, B: fx.t.baseUrl, CLIENT_ID: fx.a.clientId, CLIENT_SECRET: fx.a.clientSecret };
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('type-checks as erasable TypeScript (what Node strips) in strict mode', async () => {
    const tsc = join(process.cwd(), 'node_modules', 'typescript', 'bin', 'tsc');
    const flags = ['--noEmit', '--strict', '--erasableSyntaxOnly', '--module', 'nodenext', '--target', 'es2022', '--types', 'node'];
    const checked = await run(process.execPath, [tsc, ...flags, '--skipLibCheck', '--ignoreConfig', file]).catch(
      (err: { stdout: string }) => err,
    );
    assert.equal(checked.stdout, '');
  });

  it('sends the template, finds its contact again on a second run, and exits 0', async () => {
    const first = await run(process.execPath, [file], { env, cwd: dir });
    assert.match(first.stdout, /^Sent order_update to \+966502000100: accepted$/m);
    assert.match(first.stdout, /^No such contact: 404 Contacts:ContactNotFound$/m);
    const second = await run(process.execPath, [file], { env, cwd: dir });
    assert.match(second.stdout, /^Sent order_update to \+966502000100: accepted$/m);
    const contacts = await fx.a.api.get('/v1/contacts?PhoneNumber=966502000100');
    assert.equal(contacts.body.totalCount, 1, contacts.text);
  });

  it('exits non-zero on an unexpected failure (a wrong client secret)', async () => {
    const failed = await run(process.execPath, [file], { env: { ...env, CLIENT_SECRET: 'not-the-secret' }, cwd: dir }).then(
      () => assert.fail('the example exited 0 with a wrong secret'),
      (err: { code: number; stderr: string }) => err,
    );
    assert.notEqual(failed.code, 0);
    assert.match(failed.stderr, /ApiError: 401 invalid_client/);
  });
});
