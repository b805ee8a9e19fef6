import assert from 'node:assert/strict';
import type { FakeCloudApi } from './fake-cloud-api.js';
import type { TestApp } from './test-app.js';

/** An APPROVED template with one BODY component, as Meta lists it. */
export const approvedTemplate = (name: string, category: string, text: string) => ({
  name,
  language: 'en_US',
  category,
  status: 'APPROVED',
  components: [{ type: 'BODY', text }],
});

export interface CloudChannelOptions {
  phoneNumberId: string;
  accessToken: string;
  appSecret?: string;
  name?: string;
  phoneNumber?: string;
  webhookUrl?: string;
  /** Listed by the fake and synced into the channel (Meta's message_templates). */
  templates?: unknown[];
}

/** A Cloud API channel in a workspace, made through the admin API, its templates synced from `fake` when given. */
export async function createCloudChannel(
  t: TestApp,
  workspaceId: string,
  fake: FakeCloudApi | null,
  options: CloudChannelOptions,
): Promise<{ id: string }> {
  const { phoneNumberId, accessToken, appSecret = 'secret', templates } = options;
  const created = await t.admin.post(`/admin/v1/workspaces/${workspaceId}/channels`, {
    name: options.name ?? `Cloud WA ${phoneNumberId}`,
    type: 2,
    phoneNumber: options.phoneNumber ?? '+14155550999',
    ...(options.webhookUrl && { webhookUrl: options.webhookUrl }),
    whatsApp: { provider: 'cloud-api', phoneNumberId, wabaId: '555', accessToken, appSecret, verifyToken: 'v' },
  });
  assert.equal(created.status, 200, created.text);
  if (templates) {
    assert.ok(fake, 'templates are synced from a fake Cloud API');
    fake.templatePages = [{ data: templates }];
    const synced = await t.admin.post(`/admin/v1/channels/${created.body.id}/templates/sync`);
    assert.deepEqual(synced.body, { synced: templates.length }, synced.text);
  }
  return { id: created.body.id as string };
}
