import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { describeWithApp } from '../support/describe-with-app.js';
import { createChannel, waitFor } from '../support/fixtures.js';
import { verifySignature, WebhookReceiver } from '../support/webhook-receiver.js';

describeWithApp('Update Channel (Partial): PATCH /v1/channels/{channelId}', { env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } }, (fx) => {
  let receiver: WebhookReceiver;
  before(async () => {
    receiver = await WebhookReceiver.start();
  });
  after(() => receiver?.close());

  const patch = (channelId: string, body: unknown, api = fx.a.api) => api.request('PATCH', `/v1/channels/${channelId}`, { json: body });

  it('changes only the webhook URL, keeps the rest, and the next webhook goes there', async () => {
    const channel = await createChannel(fx.t, fx.a.workspaceId, {
      name: 'Patch me',
      icon: 'phone',
      postCallWebhookUrl: 'https://crm.example.com/calls',
    });
    const res = await patch(channel.id, { webhookUrl: receiver.url('/patched') });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.webhookUrl, receiver.url('/patched'));
    assert.equal(res.body.postCallWebhookUrl, 'https://crm.example.com/calls');
    assert.equal(res.body.name, 'Patch me');
    assert.equal(res.body.icon, 'phone');
    assert.deepEqual(res.body.whatsAppInfo, channel.whatsAppInfo);
    assert.deepEqual(res.body.phoneNumber, channel.phoneNumber);
    assert.equal(res.body.lastModifierId, fx.a.serviceAccountId);

    const listed = await fx.a.api.get('/v1/channels/service-account');
    assert.equal(listed.body.items.find((c: { id: string }) => c.id === channel.id).webhookUrl, receiver.url('/patched'));

    // Voice still works as configured by the operator, and an inbound message reaches the new URL.
    const inbound = await fx.t.admin.post(`/admin/v1/channels/${channel.id}/sandbox/inbound`, {
      fromNumber: '+966501112233',
      type: 'text',
      text: 'Hello after the patch',
    });
    assert.equal(inbound.status, 202, inbound.text);
    const delivered = await waitFor(async () => receiver.at('/patched')[0], 10_000, 'the WhatsApp Message Webhook at the patched URL');
    const payload = verifySignature(delivered, fx.a.webhookSecret) as { channelId: string; body: string; direction: string };
    assert.equal(payload.channelId, channel.id);
    assert.equal(payload.body, 'Hello after the patch');
    assert.equal(payload.direction, 'Inbound');
  });

  it('clears a URL or the icon with null, renames, and an empty body changes nothing', async () => {
    const channel = await createChannel(fx.t, fx.a.workspaceId, { icon: 'star', webhookUrl: 'https://crm.example.com/wa' });
    const cleared = await patch(channel.id, { webhookUrl: null, icon: null, name: 'Renamed line' });
    assert.equal(cleared.status, 200, cleared.text);
    assert.equal(cleared.body.webhookUrl, null);
    assert.equal(cleared.body.icon, null);
    assert.equal(cleared.body.name, 'Renamed line');
    const same = await patch(channel.id, {});
    assert.equal(same.status, 200, same.text);
    assert.equal(same.body.name, 'Renamed line');
    assert.equal(same.body.webhookUrl, null);
  });

  it('refuses a null name, an empty name, a URL that is not http(s), and a non-object body with 400 envelopes', async () => {
    const channel = await createChannel(fx.t, fx.a.workspaceId);
    for (const [body, member] of [
      [{ name: null }, 'name'],
      [{ name: '' }, 'name'],
      [{ webhookUrl: 'ftp://example.com/x' }, 'webhookUrl'],
      [{ postCallWebhookUrl: 42 }, 'postCallWebhookUrl'],
    ] as const) {
      const res = await patch(channel.id, body);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.equal(res.body.statusCode, 400);
      assert.ok(
        res.body.error.validationErrors.some((e: { members: string[] }) => e.members.includes(member)),
        `${JSON.stringify(body)} names ${member}: ${res.text}`,
      );
    }
    const array = await patch(channel.id, [1, 2]);
    assert.equal(array.status, 400, array.text);
    const unchanged = await fx.a.api.get('/v1/channels/service-account?MaxResultCount=100');
    assert.equal(unchanged.body.items.find((c: { id: string }) => c.id === channel.id).name, 'Main line');
  });

  it("answers 404 for another workspace's channel, an unknown id and a malformed id", async () => {
    const channel = await createChannel(fx.t, fx.a.workspaceId);
    const cross = await patch(channel.id, { name: 'Taken over' }, fx.b.api);
    assert.equal(cross.status, 404, cross.text);
    assert.equal(cross.body.error.code, 'Channels:ChannelNotFound');
    const unknown = await patch('0190a1b2-0000-7000-8000-000000000000', { name: 'x' });
    assert.equal(unknown.status, 404, unknown.text);
    assert.equal(unknown.body.error.code, 'Channels:ChannelNotFound');
    const malformed = await patch('not-a-uuid', { name: 'x' });
    assert.equal(malformed.status, 404, malformed.text);
    const untouched = await fx.a.api.get('/v1/channels/service-account?MaxResultCount=100');
    assert.equal(untouched.body.items.find((c: { id: string }) => c.id === channel.id).name, 'Main line');
  });

  it('needs a token', async () => {
    const channel = await createChannel(fx.t, fx.a.workspaceId);
    const res = await fx.t.http.request('PATCH', `/v1/channels/${channel.id}`, { json: { name: 'x' } });
    assert.equal(res.status, 401);
  });
});

describeWithApp('Update Channel (Partial) with private networks refused', {}, (fx) => {
  it('refuses a loopback webhookUrl with Webhooks:PrivateTarget, as Create Channel does', async () => {
    const channel = await createChannel(fx.t, fx.a.workspaceId);
    const res = await fx.a.api.request('PATCH', `/v1/channels/${channel.id}`, { json: { webhookUrl: 'http://127.0.0.1:4000/hooks' } });
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error.code, 'Webhooks:PrivateTarget');
    assert.deepEqual(res.body.error.validationErrors[0].members, ['webhookUrl']);
  });
});
