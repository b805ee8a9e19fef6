import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { describeWithApp } from '../support/describe-with-app.js';
import { createChannel } from '../support/fixtures.js';

/**
 * Swagger UI as an integrator meets it, in Debian's Chromium (installed by `.ci/run`; never a
 * downloaded browser): Authorize with client credentials, then "Try it out" → Execute on Get
 * Channels and Create Contact. A missing Chromium fails the file: the browser is part of the test.
 */
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
// Generous for a loaded CI machine; on an idle one the whole file takes well under 30 s.
const STEP_TIMEOUT_MS = 30_000;

/** The operation's block, opened, in "Try it out" mode, executed; resolves to its status and body as shown. */
async function tryItOut(page: Page, tag: string, operationId: string, path: string) {
  const block = page.locator(`#operations-${tag.replace(/\s/g, '_')}-${operationId}`);
  await block.locator('.opblock-summary').first().click();
  await block.locator('button.try-out__btn').click();
  const [response] = await Promise.all([
    page.waitForResponse((r) => new URL(r.url()).pathname === path, { timeout: STEP_TIMEOUT_MS }),
    block.locator('button.execute').click(),
  ]);
  const live = block.locator('.live-responses-table .response');
  await live.first().waitFor({ timeout: STEP_TIMEOUT_MS });
  return {
    request: response.request(),
    shownStatus: (await text(live.locator('.response-col_status').first())).trim(),
    shownBody: await text(live.locator('.response-col_description .highlight-code pre').first()),
    block,
  };
}

const text = async (locator: Locator) => (await locator.textContent({ timeout: STEP_TIMEOUT_MS })) ?? '';

describeWithApp('Swagger UI in Chromium: Authorize with client credentials, then Try it out', {}, (fx) => {
  // Chromium starts while the app boots (describeWithApp's own hook), not after it.
  const userDataDir = mkdtempSync(join(tmpdir(), 'swagger-ui-chromium-'));
  const launching: Promise<BrowserContext> = existsSync(CHROMIUM)
    ? chromium.launchPersistentContext(userDataDir, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, timeout: 60_000 })
    : Promise.reject(new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium; .ci/run does it)`));
  launching.catch(() => undefined); // reported by the hook below, not as an unhandled rejection
  let page: Page;

  before(async () => {
    const context = await launching;
    page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(STEP_TIMEOUT_MS);
  });

  after(async () => {
    await (await launching.catch(() => undefined))?.close();
    rmSync(userDataDir, { recursive: true, force: true });
  });

  it('gets a token from Service Login through Authorize, then runs Get Channels and Create Contact', async () => {
    const channel = await createChannel(fx.t, fx.a.workspaceId, { name: 'Browser line' });

    await page.goto(`${fx.t.baseUrl}/docs`, { waitUntil: 'domcontentloaded' });
    await page.locator('.swagger-ui .opblock').first().waitFor();

    // Authorize: the oauth2 client-credentials form comes first and gets the token from /connect/token.
    await page.locator('.auth-wrapper button.authorize').click();
    const oauth = page.locator('.modal-ux .auth-container').filter({ hasText: 'clientCredentials' });
    await oauth.locator('#client_id_clientCredentials').fill(fx.a.clientId);
    await oauth.locator('#client_secret_clientCredentials').fill(fx.a.clientSecret);
    const [tokenResponse] = await Promise.all([
      page.waitForResponse((r) => new URL(r.url()).pathname === '/connect/token'),
      oauth.locator('button.modal-btn.authorize').click(),
    ]);
    assert.equal(tokenResponse.status(), 200, await tokenResponse.text());
    assert.match(tokenResponse.request().headers().authorization ?? '', /^Basic /, 'Swagger UI sends the client credentials as HTTP Basic');
    await oauth.locator('button.modal-btn', { hasText: 'Logout' }).waitFor(); // authorized: the form now offers Logout
    assert.equal(await oauth.locator('.errors').count(), 0, await text(oauth));
    await page.locator('.modal-ux button.close-modal').click();

    // Get Channels with the token Swagger UI obtained.
    const channels = await tryItOut(page, 'Channels API', 'getChannels', '/v1/channels/service-account');
    assert.match(channels.request.headers().authorization ?? '', /^Bearer ey/);
    assert.equal(channels.shownStatus, '200');
    const listed = JSON.parse(channels.shownBody) as { totalCount: number; items: Array<{ id: string; name: string }> };
    assert.equal(listed.totalCount, 1);
    assert.deepEqual(
      listed.items.map((c) => [c.id, c.name]),
      [[channel.id, 'Browser line']],
    );

    // Create Contact with the request example as it stands.
    const created = await tryItOut(page, 'Contact', 'createContact', '/v1/contacts');
    assert.match(created.request.headers().authorization ?? '', /^Bearer ey/);
    assert.equal(created.shownStatus, '200', created.shownBody);
    const contact = JSON.parse(created.shownBody) as { id: string; name: string; phoneNumber: string };
    assert.equal(contact.name, 'Sara Al-Harbi');
    assert.equal(contact.phoneNumber, '+966501234567');

    // The contact is really there, in the workspace whose credentials were typed in.
    const read = await fx.a.api.get(`/v1/contacts/${contact.id}`);
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.name, 'Sara Al-Harbi');
    const elsewhere = await fx.b.api.get(`/v1/contacts/${contact.id}`);
    assert.equal(elsewhere.status, 404);
  });
});
