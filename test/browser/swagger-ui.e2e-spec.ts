import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';
import type { OpenAPIObject } from '@nestjs/swagger';
import { DEMO_CHANNEL_ID } from '../../src/database/demo-channel-id.js';
import { forEachOperation } from '../../src/openapi/document-walk.js';
import { REQUEST_BODY_EXAMPLES } from '../../src/openapi/request-examples.js';
import { DemoSeeder } from '../../src/database/demo-seeder.service.js';
import type { DemoCredentials } from '../../src/database/demo-credentials.js';
import { describeWithApp } from '../support/describe-with-app.js';
import { waitFor } from '../support/fixtures.js';

/**
 * Swagger UI as an integrator meets it after `npm start`, in Debian's Chromium (installed by
 * `.ci/run`; never a downloaded browser): the demo workspace seeded, Authorize with its client
 * credentials, then "Try it out" → Execute with the request examples as they stand. A missing
 * Chromium fails the file: the browser is part of the test.
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

/**
 * The operation's block, opened, in "Try it out" mode with the path's ids typed in (the example body
 * untouched), executed; resolves to its status and body as shown.
 */
async function tryItOut(page: Page, tag: string, operationId: string, path: string, pathIds: Record<string, string> = {}) {
  const block = page.locator(`#operations-${tag.replace(/\s/g, '_')}-${operationId}`);
  await block.locator('.opblock-summary').first().click();
  await block.locator('button.try-out__btn').click();
  for (const [name, value] of Object.entries(pathIds)) await block.locator(`tr[data-param-name="${name}"] input`).fill(value);
  const [response] = await Promise.all([
    page.waitForResponse((r) => new URL(r.url()).pathname === path, { timeout: STEP_TIMEOUT_MS }),
    block.locator('button.execute').click(),
  ]);
  const live = block.locator('.live-responses-table .response');
  await live.first().waitFor({ timeout: STEP_TIMEOUT_MS });
  const shown = {
    request: response.request(),
    shownStatus: (await text(live.locator('.response-col_status').first())).trim(),
    shownBody: await text(live.locator('.response-col_description .highlight-code pre').first()),
  };
  return { ...shown, block };
}

/** The example body Swagger UI fills in (the first), as the document gives it. */
const defaultExample = (operationId: string) =>
  (Object.values(REQUEST_BODY_EXAMPLES[operationId])[0] as { value: Record<string, unknown> }).value;

interface DOMRectLike {
  left: number;
  top: number;
  width: number;
  height: number;
}

const text = async (locator: Locator) => (await locator.textContent({ timeout: STEP_TIMEOUT_MS })) ?? '';

/** The operations the browser runs (Create Contact and Property, Set Property Value, the sends, the call). */
const RUN_IN_BROWSER = [
  'createContact',
  'createContactProperty',
  'setPropertyValueOnContact',
  'sendText',
  'sendTemplate',
  'createOutboundIvr',
];

/** Bodies whose example cannot run as it stands, and why. */
const NOT_RUNNABLE: Record<string, string> = {
  serviceLogin: 'the client secret is the caller’s own (Authorize does it)',
  sendReaction: 'names a message of the conversation (Get Conversation Timeline)',
  markAsRead: 'names a message of the conversation (Get Conversation Timeline)',
};

/** The others, in an order where what an example needs exists by then (the customer has written before the free-form sends). */
const RUN_ORDER = [
  'injectSandboxInboundMessage',
  'injectSandboxUserPreference',
  'createSandboxTemplate',
  'setChannelLimits',
  'injectSandboxQualityUpdate',
  'createWorkspace',
  'createServiceAccount',
  'createWorkspaceUser',
  'createChannel',
  'updateChannel',
  'updateChannelPartial',
  'sendInteractiveButtons',
  'sendImage',
  'sendAudio',
  'sendVideo',
  'sendFile',
  'sendLocation',
  'sendContacts',
  'sendList',
  'sendCtaUrl',
  'updateContact',
  'updateContactConsent',
  'createBulkContactsVCards',
  'searchContacts',
  'contactPropertiesStatistics',
  'updateContactProperty',
  'createConversation',
  'assignConversation',
  'setConversationStatus',
  'tagAConversation',
  'createTag',
  'updateTag',
  'createWebhookEndpoint',
  'updateWebhookEndpoint',
  'recoverWebhookEndpoint',
  'sendTestWebhookEvent',
  'createCampaign',
  'updateSendPolicy',
  'createOutboundIvrFlow',
  'updateOutboundIvrFlow',
  'setWhatsAppCalling',
  // After Set WhatsApp Calling: calling is on for the demo number.
  'simulateSandboxWhatsAppUserCall',
  'createTemplate',
  'setRateCard',
  'setCallIntelligence',
  // Last: it marks a number of the demo channel as an answering machine.
  'setSandboxAnsweringMachines',
];

/** The id an operation's answer gives, kept under this name for the paths of later ones. */
const KEEPS_ID: Record<string, string> = {
  createChannel: 'secondChannelId',
  createConversation: 'conversationId',
  createTag: 'tagId',
  createWebhookEndpoint: 'endpointId',
  createOutboundIvrFlow: 'flowId',
};

/** Path parameters named otherwise than the id they take (Update Channel changes the second channel, not the demo one). */
const PATH_IDS: Record<string, Record<string, string>> = {
  updateChannel: { channelId: 'secondChannelId' },
  updateContact: { id: 'contactId' },
  contactPropertiesStatistics: { id: 'propertyId' },
  updateContactProperty: { id: 'propertyId' },
  updateTag: { id: 'tagId' },
  updateWebhookEndpoint: { id: 'endpointId' },
  recoverWebhookEndpoint: { id: 'endpointId' },
  sendTestWebhookEvent: { id: 'endpointId' },
  updateOutboundIvrFlow: { id: 'flowId' },
};

/** Where the run leaves its last screenshot, for a person to look at. */
const SCREENSHOT = join(tmpdir(), 'swagger-ui-demo.png');
const AUTHORIZE_SCREENSHOT = join(tmpdir(), 'swagger-ui-demo-authorize.png');

describeWithApp(
  'Swagger UI in Chromium on the demo workspace: Authorize with client credentials, then Try it out with the examples',
  // As `npm start` runs it: the demo seed on, webhooks to localhost allowed.
  { env: { SEED_DEMO: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }, workspaces: 0 },
  (fx) => {
    // Chromium starts while the app boots (describeWithApp's own hook), not after it.
    const userDataDir = mkdtempSync(join(tmpdir(), 'swagger-ui-chromium-'));
    const launching: Promise<BrowserContext> = existsSync(CHROMIUM)
      ? chromium.launchPersistentContext(userDataDir, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, timeout: 60_000 })
      : Promise.reject(new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium; .ci/run does it)`));
    launching.catch(() => undefined); // reported by the hook below, not as an unhandled rejection
    let page: Page;
    /** Ids the browser's run made (the contact and the property), for the examples that need them in their path. */
    const made: Record<string, string> = {};
    // What `npm start` prints once, after listening, when it seeds the demo (test/e2e/first-start and the
    // first-run test read it from the printed lines); the test app does not print, so it asks the seeder.
    let credentials: DemoCredentials | undefined;
    const demo = (): DemoCredentials => {
      credentials ??= fx.t.app.get(DemoSeeder).takeCreatedCredentials();
      assert.ok(credentials, 'the demo seed created a workspace');
      return credentials;
    };

    before(async () => {
      const context = await launching;
      page = context.pages()[0] ?? (await context.newPage());
      page.setDefaultTimeout(STEP_TIMEOUT_MS);
      await page.setViewportSize({ width: 1280, height: 900 });
    });

    after(async () => {
      await (await launching.catch(() => undefined))?.close();
      rmSync(userDataDir, { recursive: true, force: true });
    });

    it('authorizes with the demo client credentials, then runs the examples as they stand', async () => {
      await page.goto(`${fx.t.baseUrl}/docs`, { waitUntil: 'domcontentloaded' });
      await page.locator('.swagger-ui .opblock').first().waitFor();

      // Authorize: the oauth2 client-credentials form is the first one, on screen as the dialog opens.
      await page.locator('.auth-wrapper button.authorize').click();
      const forms = page.locator('.modal-ux .auth-container');
      await forms.first().waitFor();
      assert.match(await text(forms.first()), /clientCredentials/, 'the first form of Authorize is OAuth2 client credentials');
      const oauth = forms.filter({ hasText: 'clientCredentials' });
      const clientIdInput = oauth.locator('#client_id_clientCredentials');
      // Seen, not merely laid out: the point at its middle is the field itself, not the dialog's header or the page.
      const onScreen = await page
        .waitForFunction(
          () => {
            const doc = (
              globalThis as unknown as { document: { querySelector(s: string): unknown; elementFromPoint(x: number, y: number): unknown } }
            ).document;
            const input = doc.querySelector('#client_id_clientCredentials') as { getBoundingClientRect(): DOMRectLike } | null;
            const box = input?.getBoundingClientRect();
            return Boolean(box && doc.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2) === input);
          },
          undefined,
          { timeout: 3_000 },
        )
        .then(() => true)
        .catch(() => false);
      await page.screenshot({ path: AUTHORIZE_SCREENSHOT });
      assert.ok(onScreen, 'the client_id field is on screen when Authorize opens');
      await clientIdInput.fill(demo().clientId);
      await oauth.locator('#client_secret_clientCredentials').fill(demo().clientSecret);
      const [tokenResponse] = await Promise.all([
        page.waitForResponse((r) => new URL(r.url()).pathname === '/connect/token'),
        oauth.locator('button.modal-btn.authorize').click(),
      ]);
      assert.equal(tokenResponse.status(), 200, await tokenResponse.text());
      await oauth.locator('button.modal-btn', { hasText: 'Logout' }).waitFor(); // authorized: the form now offers Logout
      assert.equal(await oauth.locator('.errors').count(), 0, await text(oauth));
      await page.locator('.modal-ux button.close-modal').click();

      const channels = await tryItOut(page, 'Channels API', 'getChannels', '/v1/channels/service-account');
      assert.match(channels.request.headers().authorization ?? '', /^Bearer ey/);
      assert.equal(channels.shownStatus, '200', channels.shownBody);
      const listed = JSON.parse(channels.shownBody) as { items: Array<{ id: string }> };
      assert.deepEqual(
        listed.items.map((c) => c.id),
        [DEMO_CHANNEL_ID],
        "the examples' channel is the demo channel",
      );

      const contact = await tryItOut(page, 'Contact', 'createContact', '/v1/contacts');
      assert.equal(contact.shownStatus, '200', contact.shownBody);
      const contactId = (JSON.parse(contact.shownBody) as { id: string }).id;
      made.contactId = contactId;

      const property = await tryItOut(page, 'Contact Properties', 'createContactProperty', '/v1/contact-property-definitions');
      assert.match(property.shownStatus, /^2\d\d$/, property.shownBody);
      const propertyId = (JSON.parse(property.shownBody) as { id: string }).id;
      made.propertyId = propertyId;

      const value = await tryItOut(page, 'Contact', 'setPropertyValueOnContact', `/v1/contacts/${contactId}/properties/${propertyId}`, {
        contactId,
        propertyId,
      });
      assert.match(value.shownStatus, /^2\d\d$/, value.shownBody);

      // The customer of the free-form sends' examples writes first (the admin sandbox route), opening the service window.
      const inbound = await fx.t.admin.post(
        `/admin/v1/channels/${DEMO_CHANNEL_ID}/sandbox/inbound`,
        defaultExample('injectSandboxInboundMessage'),
      );
      assert.equal(inbound.status, 202, inbound.text);
      const customer = defaultExample('sendText').toNumber as string;
      await waitFor(
        async () => {
          const found = await fx.t.http.get(`/v1/contacts?PhoneNumber=${customer}`, { authorization: `Bearer ${await demoToken()}` });
          return found.body?.totalCount === 1;
        },
        STEP_TIMEOUT_MS,
        'the inbound message to be received',
      );

      for (const operationId of ['sendText', 'sendTemplate']) {
        const sent = await tryItOut(page, 'Whatsapp API', operationId, `/v1/whatsapp/service-account/${operationId}`);
        assert.match(sent.shownStatus, /^2\d\d$/, `${operationId}: ${sent.shownBody}`);
      }
      const call = await tryItOut(page, 'Outbound IVR', 'createOutboundIvr', '/v1/outbound-ivr');
      assert.match(call.shownStatus, /^2\d\d$/, call.shownBody);

      await call.block.locator('.live-responses-table').scrollIntoViewIfNeeded();
      await page.screenshot({ path: SCREENSHOT });
      console.log(`Screenshots: ${AUTHORIZE_SCREENSHOT}, ${SCREENSHOT}`);
    });

    it('runs the default example of every other JSON request body, as served, against the demo workspace', async () => {
      assert.ok(made.contactId && made.propertyId, 'the browser run made its contact and property');
      const served = (await fx.t.http.get<OpenAPIObject>('/docs-json')).body;
      const bodies = new Map<string, { method: string; path: string; value: unknown }>();
      forEachOperation(served, (operation, { path, method }) => {
        const json = (operation.requestBody as { content?: Record<string, { examples?: Record<string, { value: unknown }> }> } | undefined)
          ?.content?.['application/json'];
        if (json) bodies.set(operation.operationId!, { method, path, value: Object.values(json.examples ?? {})[0]?.value });
      });
      assert.deepEqual(
        [...bodies.keys()].filter((id) => !RUN_ORDER.includes(id) && !RUN_IN_BROWSER.includes(id) && !(id in NOT_RUNNABLE)).sort(),
        [],
        'JSON bodies this test does not run: add them to RUN_ORDER',
      );
      const workspaces = await fx.t.admin.get<{ items: Array<{ id: string; name: string }> }>('/admin/v1/workspaces');
      const ids: Record<string, string> = {
        ...made,
        channelId: DEMO_CHANNEL_ID,
        workspaceId: workspaces.body.items.find((w) => w.name === 'Demo workspace')!.id,
      };
      const token = await demoToken();
      const failures: string[] = [];
      for (const operationId of RUN_ORDER) {
        const { method, path, value } = bodies.get(operationId)!;
        const names = PATH_IDS[operationId] ?? {};
        const url = path.replace(/\{(\w+)\}/g, (_, name: string) => ids[names[name] ?? name] ?? `<no ${name}>`);
        const client = path.startsWith('/admin/') ? fx.t.admin : fx.t.http.withToken(token);
        const response = await client.request<{ id?: string; conversation?: { id: string } }>(method.toUpperCase(), url, { json: value });
        if (response.status >= 300) failures.push(`${operationId} ${method.toUpperCase()} ${url}: ${response.status} ${response.text}`);
        const keeps = KEEPS_ID[operationId];
        // Create Conversation answers the conversation inside its result; the others answer the resource.
        const id = response.body?.conversation?.id ?? response.body?.id;
        if (keeps && id) ids[keeps] = id;
      }
      assert.deepEqual(failures, []);
    });

    /** A token of the demo service account, for the test's own reads. */
    async function demoToken(): Promise<string> {
      const response = await fx.t.http.post<{ access_token: string }>('/connect/token', {
        grant_type: 'client_credentials',
        client_id: demo().clientId,
        client_secret: demo().clientSecret,
      });
      return response.body.access_token;
    }
  },
);
