import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { before, it } from 'node:test';
import { DataSource } from 'typeorm';
import { describeWithApp } from '../support/describe-with-app.js';
import { createChannel, waitFor } from '../support/fixtures.js';
import { verifySignature, WebhookReceiver } from '../support/webhook-receiver.js';

const TEMPLATE = {
  name: 'hello',
  language: 'en',
  category: 'UTILITY',
  status: 'APPROVED',
  components: [{ type: 'BODY', text: 'Hello {{1}}' }],
};

describeWithApp(
  'Delivery statuses and the Meta webhook endpoints',
  {
    peers: { receiver: () => WebhookReceiver.start() },
    env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', RATE_LIMIT_REQUESTS_PER_MINUTE: '100000' },
    workspaces: 1,
  },
  (fx) => {
    let sandbox: { id: string };
    let cloud: { id: string };

    const timelineEvent = async (channelId: string, phone: string, eventId: string) => {
      const conversation = (await fx.a.api.post('/v2/conversations/service-account/create', { channelId, phoneNumber: phone })).body
        .conversation;
      const page = await fx.a.api.get(`/v2/conversations/service-account/${conversation.id}/timeline?MaxResultCount=100`);
      return page.body.items.find((e: { eventId: string }) => e.eventId === eventId);
    };

    before(async () => {
      sandbox = await createChannel(fx.t, fx.a.workspaceId, { webhookUrl: fx.receiver.url('/statuses') });
      assert.equal((await fx.t.admin.post(`/admin/v1/channels/${sandbox.id}/templates`, TEMPLATE)).status, 200);
      cloud = (
        await fx.t.admin.post(`/admin/v1/workspaces/${fx.a.workspaceId}/channels`, {
          name: 'Cloud',
          type: 2,
          phoneNumber: '+14155550778',
          webhookUrl: fx.receiver.url('/cloud'),
          whatsApp: {
            provider: 'cloud-api',
            phoneNumberId: '111',
            wabaId: '222',
            accessToken: 'tok',
            appSecret: 'app-secret',
            verifyToken: 'verify-me',
          },
        })
      ).body;
    });

    it('moves a sandbox message through Sent, Delivered and Read, telling the channel’s webhook each time', async () => {
      const res = await fx.a.api.post('/v1/whatsapp/service-account/sendTemplate', {
        channelId: sandbox.id,
        templateName: 'hello',
        language: 'en',
        toNumber: '14155550501',
        parameters: [{ type: 'Body', values: [{ type: 'text', text: 'Ann' }] }],
      });
      assert.equal(res.status, 200, res.text);
      const read = await waitFor(
        async () => {
          const e = await timelineEvent(sandbox.id, '+14155550501', res.body.conversationEventId);
          return e?.status === 'Read' ? e : undefined;
        },
        10_000,
        'Read',
      );
      assert.match(read.sourceId, /^wamid\.sandbox\./);
      const statuses = await waitFor(async () => {
        const got = fx.receiver
          .at('/statuses')
          .map(
            (r) => verifySignature(r, fx.a.webhookSecret) as { status: string; messageId: string; direction: string; isBillable: boolean },
          );
        return got.some((p) => p.status === 'Read') ? got : undefined;
      });
      assert.deepEqual(
        statuses.map((p) => p.status),
        ['Sent', 'Delivered', 'Read'],
      );
      assert.ok(statuses.every((p) => p.messageId === read.sourceId && p.direction === 'Outbound' && p.isBillable === true));

      // A late `delivered` after `read` is ignored.
      const { StatusService } = await import('../../src/whatsapp/status.service.js');
      await fx.t.app.get(StatusService).apply(fx.a.workspaceId, sandbox.id, {
        providerMessageId: read.sourceId,
        status: 'Delivered',
        at: new Date().toISOString(),
        errorCode: null,
        errorReason: null,
      });
      assert.equal((await timelineEvent(sandbox.id, '+14155550501', res.body.conversationEventId)).status, 'Read');
    });

    it('answers Meta’s subscription handshake only with the channel’s verify token', async () => {
      const ok = await fx.t.http.get(`/v1/whatsapp/webhooks/${cloud.id}?hub.mode=subscribe&hub.verify_token=verify-me&hub.challenge=12345`);
      assert.equal(ok.status, 200);
      assert.equal(ok.text, '12345');
      const wrong = await fx.t.http.get(`/v1/whatsapp/webhooks/${cloud.id}?hub.mode=subscribe&hub.verify_token=nope&hub.challenge=12345`);
      assert.equal(wrong.status, 403);
    });

    it('accepts a signed notification, processes the inbound quick reply in the worker, and refuses a bad signature', async () => {
      const notification = {
        object: 'whatsapp_business_account',
        entry: [
          {
            id: '222',
            changes: [
              {
                field: 'messages',
                value: {
                  messaging_product: 'whatsapp',
                  metadata: { display_phone_number: '14155550778', phone_number_id: '111' },
                  contacts: [{ profile: { name: 'Kerry' }, wa_id: '14155550502' }],
                  messages: [
                    {
                      from: '14155550502',
                      id: 'wamid.inbound-1',
                      timestamp: String(Math.floor(Date.now() / 1000)),
                      type: 'button',
                      button: { payload: 'YES_PLEASE', text: 'Yes' },
                    },
                  ],
                },
              },
            ],
          },
        ],
      };
      const body = JSON.stringify(notification);
      const signature = `sha256=${createHmac('sha256', 'app-secret').update(body).digest('hex')}`;
      const bad = await fx.t.http.request('POST', `/v1/whatsapp/webhooks/${cloud.id}`, {
        body,
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': 'sha256=00ff' },
      });
      assert.equal(bad.status, 401);
      assert.equal(bad.body.error.code, 'WhatsApp:InvalidSignature');
      // Answered by Fastify directly: the pipeline's answers are kept (404 for an id that names no channel, the error envelope).
      for (const channelId of ['not-a-uuid', '0190b4a4-0000-7000-8000-000000000000']) {
        const unknown = await fx.t.http.request('POST', `/v1/whatsapp/webhooks/${channelId}`, {
          body,
          headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
        });
        assert.equal(unknown.status, 404, unknown.text);
        assert.match(unknown.body.error.code, /^Channels:/);
      }
      const good = await fx.t.http.request('POST', `/v1/whatsapp/webhooks/${cloud.id}`, {
        body,
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
      });
      assert.equal(good.status, 200, good.text);
      assert.deepEqual(good.body, { received: true });
      const again = await fx.t.http.request('POST', `/v1/whatsapp/webhooks/${cloud.id}`, {
        body,
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
      });
      assert.equal(again.status, 200, 'Meta redelivers; the message is recorded once');
      const webhook = await waitFor(async () => fx.receiver.at('/cloud')[0], 10_000, 'the WhatsApp Message Webhook');
      const payload = verifySignature(webhook, fx.a.webhookSecret) as Record<string, unknown>;
      assert.deepEqual(
        [payload.messageId, payload.buttonPayload, payload.buttonText, payload.direction],
        ['wamid.inbound-1', 'YES_PLEASE', 'Yes', 'Inbound'],
      );
      await new Promise((resolve) => setTimeout(resolve, 800));
      const conversation = (
        await fx.a.api.post('/v2/conversations/service-account/create', { channelId: cloud.id, phoneNumber: '+14155550502' })
      ).body.conversation;
      assert.equal((await fx.a.api.get(`/v2/conversations/service-account/${conversation.id}/timeline`)).body.totalCount, 1);
      assert.equal(fx.receiver.at('/cloud').length, 1);
    });
    it('claims again a notification whose worker died before recording it, and retention deletes processed ones', async () => {
      const db = fx.t.app.get(DataSource);
      const notification = (id: string) => ({
        object: 'whatsapp_business_account',
        entry: [
          {
            changes: [
              {
                field: 'messages',
                value: {
                  contacts: [{ profile: { name: 'Lee' }, wa_id: '14155550503' }],
                  messages: [
                    { from: '14155550503', id, timestamp: String(Math.floor(Date.now() / 1000)), type: 'text', text: { body: 'hi' } },
                  ],
                },
              },
            ],
          },
        ],
      });
      // Claimed by a worker that died: its lease ran out a second ago, nothing was recorded.
      await db.query(
        `INSERT INTO whatsapp_intake (id, workspace_id, channel_id, body, claimed_until, attempts)
       VALUES (gen_random_uuid(), $1, $2, $3, now() - interval '1 second', 1)`,
        [fx.a.workspaceId, cloud.id, JSON.stringify(notification('wamid.orphaned-1'))],
      );
      const webhook = await waitFor(
        async () =>
          fx.receiver
            .at('/cloud')
            .find((r) => (verifySignature(r, fx.a.webhookSecret) as { messageId: string }).messageId === 'wamid.orphaned-1'),
        10_000,
        'the webhook of the notification claimed again',
      );
      assert.ok(webhook);
      const [row] = await waitFor(async () => {
        const rows = await db.query<Array<{ attempts: number; processed_at: Date | null }>>(
          `SELECT attempts, processed_at FROM whatsapp_intake WHERE body LIKE '%wamid.orphaned-1%'`,
        );
        return rows[0]?.processed_at ? rows : undefined;
      });
      assert.equal(row.attempts, 2);

      // Retention: processed rows older than OUTBOX_RETENTION go, unprocessed ones stay whatever their age.
      await db.query(`UPDATE whatsapp_intake SET processed_at = now() - interval '30 days' WHERE processed_at IS NOT NULL`);
      await db.query(
        `INSERT INTO whatsapp_intake (id, workspace_id, channel_id, body, received_at, claimed_until)
       VALUES (gen_random_uuid(), $1, $2, '{}', now() - interval '30 days', now() + interval '1 hour')`,
        [fx.a.workspaceId, cloud.id],
      );
      const { Retention } = await import('../../src/queue/retention.service.js');
      const pruned = await fx.t.app.get(Retention).prune('whatsapp_intake');
      assert.ok(pruned.deleted >= 1);
      const left = await db.query<Array<{ processed: string; pending: string }>>(
        `SELECT count(processed_at) AS processed, count(*) - count(processed_at) AS pending FROM whatsapp_intake`,
      );
      assert.deepEqual(left[0], { processed: '0', pending: '1' });
    });
  },
);
