import assert from 'node:assert/strict';
import type { TestApp } from './test-app.js';
import { HttpClient } from './http-client.js';

export interface WorkspaceFixture {
  workspaceId: string;
  webhookSecret: string;
  clientId: string;
  clientSecret: string;
  serviceAccountId: string;
  token: string;
  api: HttpClient;
}

/** Creates a workspace and a service account through the admin API and logs in with it. */
export async function createWorkspace(t: TestApp, name = 'Test workspace'): Promise<WorkspaceFixture> {
  const ws = await t.admin.post('/admin/v1/workspaces', { name });
  assert.equal(ws.status, 200, ws.text);
  const sa = await t.admin.post(`/admin/v1/workspaces/${ws.body.id}/service-accounts`, { name: 'integration' });
  assert.equal(sa.status, 200, sa.text);
  const token = await requestToken(t, sa.body.clientId, sa.body.clientSecret);
  assert.equal(token.status, 200, token.text);
  return {
    workspaceId: ws.body.id,
    webhookSecret: ws.body.webhookSecret,
    clientId: sa.body.clientId,
    clientSecret: sa.body.clientSecret,
    serviceAccountId: sa.body.id,
    token: token.body.access_token,
    api: t.http.withToken(token.body.access_token),
  };
}

export function requestToken(t: TestApp, clientId: string, clientSecret: string, extra: Record<string, string> = {}) {
  return t.http.request('POST', '/connect/token', {
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, ...extra }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
}

/** A sandbox channel with WhatsApp and voice. */
export async function createChannel(t: TestApp, workspaceId: string, overrides: Record<string, unknown> = {}) {
  const res = await t.admin.post(`/admin/v1/workspaces/${workspaceId}/channels`, {
    name: 'Main line',
    type: 3,
    phoneNumber: '+14155550123',
    whatsApp: { provider: 'sandbox' },
    voice: { provider: 'sandbox' },
    ...overrides,
  });
  assert.equal(res.status, 200, res.text);
  return res.body;
}

/** Polls `check` until it returns a truthy value or the deadline passes. */
export async function waitFor<T>(check: () => Promise<T | undefined | null | false>, timeoutMs = 10_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
