import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeWithApp } from '../support/describe-with-app.js';
import { DataSource } from 'typeorm';
import { Channel } from '../../src/channels/channel.entity.js';
import { createChannel } from '../support/fixtures.js';

const NO_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/;
const UTC_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describeWithApp('Admin API, Channels API and Workspace API', {}, (fx) => {
  it('creates workspaces with a whsec_ secret and lists them without secrets', async () => {
    assert.match(fx.a.webhookSecret, /^whsec_[A-Za-z0-9+/=]+$/);
    const list = await fx.t.admin.get('/admin/v1/workspaces?MaxResultCount=10');
    assert.equal(list.status, 200);
    assert.equal(list.body.totalCount, 2);
    assert.deepEqual(
      list.body.items.map((w: { name: string }) => w.name),
      ['A', 'B'],
    );
    assert.ok(!JSON.stringify(list.body).includes('whsec_'), 'no secret in the list');
  });

  it('rotates the webhook secret and keeps signing with the old one for 24 h', async () => {
    const { WorkspacesService } = await import('../../src/workspaces/workspaces.service.js');
    const rotated = await fx.t.admin.post(`/admin/v1/workspaces/${fx.a.workspaceId}/webhook-secret`);
    assert.equal(rotated.status, 200);
    assert.match(rotated.body.webhookSecret, /^whsec_/);
    assert.notEqual(rotated.body.webhookSecret, fx.a.webhookSecret);
    const secrets = await fx.t.app.get(WorkspacesService).signingSecrets(fx.a.workspaceId);
    assert.deepEqual(secrets, [rotated.body.webhookSecret, fx.a.webhookSecret]);
  });

  it('creates users and lists them per workspace only', async () => {
    const ann = await fx.t.admin.post(`/admin/v1/workspaces/${fx.a.workspaceId}/users`, {
      email: 'ann@alpha.example',
      name: 'Ann',
      role: 1,
      phoneNumber: '+44 20 7946 0958',
    });
    assert.equal(ann.status, 200, ann.text);
    await fx.t.admin.post(`/admin/v1/workspaces/${fx.a.workspaceId}/users`, {
      email: 'bot@alpha.example',
      name: 'Bot',
      role: 2,
      isAiAgent: true,
    });
    await fx.t.admin.post(`/admin/v1/workspaces/${fx.b.workspaceId}/users`, { email: 'bob@beta.example', name: 'Bob', role: 'Owner' });

    const users = await fx.a.api.get('/v1/workspaces/users');
    assert.equal(users.status, 200);
    assert.deepEqual(
      users.body.map((u: { email: string }) => u.email),
      ['ann@alpha.example', 'bot@alpha.example'],
    );
    const first = users.body[0];
    assert.deepEqual(
      Object.keys(first).sort(),
      ['creationTime', 'email', 'id', 'isAiAgent', 'logoUrl', 'name', 'phoneNumber', 'role', 'userId', 'workspaceId'].sort(),
    );
    assert.equal(first.phoneNumber, '+442079460958');
    assert.equal(first.workspaceId, fx.a.workspaceId);
    assert.equal(first.logoUrl, null);
    assert.match(first.creationTime, UTC_Z);
    assert.equal(users.body[1].isAiAgent, true);

    const beta = await fx.b.api.get('/v1/workspaces/users');
    assert.deepEqual(
      beta.body.map((u: { email: string }) => u.email),
      ['bob@beta.example'],
    );
  });

  it('creates channels with write-only credentials, sealed at rest', async () => {
    const res = await fx.t.admin.post(`/admin/v1/workspaces/${fx.a.workspaceId}/channels`, {
      name: 'Cloud',
      type: 3,
      phoneNumber: '966501234567',
      webhookUrl: 'https://hooks.example.com/wa',
      postCallWebhookUrl: 'https://hooks.example.com/calls',
      whatsApp: {
        provider: 'cloud-api',
        phoneNumberId: '1234567890',
        wabaId: '99887766',
        accessToken: 'EAAG-super-secret',
        appSecret: 'app-secret-value',
        verifyToken: 'verify-me',
      },
      voice: { provider: 'twilio', accountSid: 'AC123', authToken: 'twilio-auth-token', fromNumber: '+14155550100' },
    });
    assert.equal(res.status, 200, res.text);
    const text = JSON.stringify(res.body);
    for (const secret of ['EAAG-super-secret', 'app-secret-value', 'verify-me', 'twilio-auth-token'])
      assert.ok(!text.includes(secret), `${secret} not returned`);
    assert.deepEqual(res.body.whatsAppInfo, {
      phoneNumberId: '1234567890',
      wabaId: '99887766',
      displayPhoneNumber: '+966501234567',
      provider: 'cloud-api',
    });
    assert.equal(res.body.phoneNumber.number, '+966501234567');
    assert.equal(res.body.phoneNumber.provider, 'twilio');
    assert.match(res.body.creationTime, NO_OFFSET);
    assert.match(res.body.lastModificationTime, NO_OFFSET);

    const row = await fx.t.app.get(DataSource).getRepository(Channel).findOneByOrFail({ id: res.body.id });
    assert.ok(row.whatsAppCredentialsSealed && !row.whatsAppCredentialsSealed.includes('EAAG'), 'stored encrypted');
    assert.ok(row.voiceCredentialsSealed && !row.voiceCredentialsSealed.includes('twilio-auth-token'));

    const listed = await fx.a.api.get('/v1/channels/service-account');
    assert.ok(!JSON.stringify(listed.body).includes('EAAG-super-secret'));
  });

  it('refuses a channel configuration that lacks what its type or provider needs', async () => {
    const noWhatsApp = await fx.t.admin.post(`/admin/v1/workspaces/${fx.a.workspaceId}/channels`, {
      name: 'x',
      type: 2,
      phoneNumber: '+14155550100',
    });
    assert.equal(noWhatsApp.status, 400);
    assert.deepEqual(noWhatsApp.body.error.validationErrors[0].members, ['whatsApp']);
    const noToken = await fx.t.admin.post(`/admin/v1/workspaces/${fx.a.workspaceId}/channels`, {
      name: 'x',
      type: 2,
      phoneNumber: '+14155550100',
      whatsApp: { provider: 'cloud-api', phoneNumberId: '1', wabaId: '2', appSecret: 's', verifyToken: 'v' },
    });
    assert.equal(noToken.status, 400);
    assert.deepEqual(noToken.body.error.validationErrors[0].members, ['whatsApp.accessToken']);
    const badType = await fx.t.admin.post(`/admin/v1/workspaces/${fx.a.workspaceId}/channels`, {
      name: 'x',
      type: 9,
      phoneNumber: '+14155550100',
    });
    assert.equal(badType.status, 400);
  });

  it('lists channels of the caller’s workspace only, and updates and deletes them per workspace', async () => {
    const mine = await createChannel(fx.t, fx.b.workspaceId, { name: 'Beta line' });
    const aList = await fx.a.api.get('/v1/channels/service-account');
    assert.ok(aList.body.items.every((c: { workspaceId: string }) => c.workspaceId === fx.a.workspaceId));
    assert.ok(!aList.body.items.some((c: { id: string }) => c.id === mine.id));

    // The admin cannot reach B's channel through A's workspace path.
    const crossUpdate = await fx.t.admin.put(`/admin/v1/workspaces/${fx.a.workspaceId}/channels/${mine.id}`, {
      name: 'Hijacked',
      type: 2,
      phoneNumber: '+14155550100',
      whatsApp: { provider: 'sandbox' },
    });
    assert.equal(crossUpdate.status, 404);
    assert.equal(crossUpdate.body.error.code, 'Channels:ChannelNotFound');

    const updated = await fx.t.admin.put(`/admin/v1/workspaces/${fx.b.workspaceId}/channels/${mine.id}`, {
      name: 'Renamed',
      type: 2,
      phoneNumber: '+14155550100',
      whatsApp: { provider: 'sandbox' },
    });
    assert.equal(updated.status, 200, updated.text);
    assert.equal(updated.body.name, 'Renamed');
    assert.equal(updated.body.type, 2);

    assert.equal((await fx.t.admin.delete(`/admin/v1/workspaces/${fx.a.workspaceId}/channels/${mine.id}`)).status, 404);
    assert.equal((await fx.t.admin.delete(`/admin/v1/workspaces/${fx.b.workspaceId}/channels/${mine.id}`)).status, 204);
    const after = await fx.b.api.get('/v1/channels/service-account');
    assert.ok(!after.body.items.some((c: { id: string }) => c.id === mine.id));
  });

  it('keeps stored credentials when an update leaves them out', async () => {
    const created = await fx.t.admin.post(`/admin/v1/workspaces/${fx.a.workspaceId}/channels`, {
      name: 'Keep',
      type: 1,
      phoneNumber: '+14155550111',
      voice: { provider: 'twilio', accountSid: 'AC1', authToken: 'original-token' },
    });
    assert.equal(created.status, 200, created.text);
    const updated = await fx.t.admin.put(`/admin/v1/workspaces/${fx.a.workspaceId}/channels/${created.body.id}`, {
      name: 'Keep 2',
      type: 1,
      phoneNumber: '+14155550111',
      voice: { provider: 'twilio', accountSid: 'AC1' },
    });
    assert.equal(updated.status, 200, updated.text);
    const { ChannelsService } = await import('../../src/channels/channels.service.js');
    const service = fx.t.app.get(ChannelsService);
    const channel = await service.get(fx.a.workspaceId, created.body.id);
    assert.equal(service.voiceCredentials(channel).authToken, 'original-token');
  });

  it('revoking an unknown or foreign service account is a 404', async () => {
    const res = await fx.t.admin.delete(`/admin/v1/workspaces/${fx.a.workspaceId}/service-accounts/${fx.b.serviceAccountId}`);
    assert.equal(res.status, 404);
    assert.equal((await fx.b.api.get('/v1/workspaces/users')).status, 200, 'B still works');
  });

  it('answers Cache-Control: no-store where a response carries a secret', async () => {
    const workspace = await fx.t.admin.post('/admin/v1/workspaces', { name: 'Secretive' });
    const rotated = await fx.t.admin.post(`/admin/v1/workspaces/${workspace.body.id}/webhook-secret`);
    const account = await fx.t.admin.post(`/admin/v1/workspaces/${workspace.body.id}/service-accounts`, { name: 'crm' });
    for (const [what, res] of [
      ['create workspace', workspace],
      ['rotate webhook secret', rotated],
      ['create service account', account],
    ] as const) {
      assert.equal(res.status, 200, `${what}: ${res.text}`);
      assert.equal(res.headers.get('cache-control'), 'no-store', what);
    }
    assert.match(account.body.clientSecret, /\S/);
    const list = await fx.t.admin.get('/admin/v1/workspaces');
    assert.equal(list.headers.get('cache-control'), null, 'responses without secrets are left alone');
  });
});
