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
      const { StatusService } = await import('../../src/whatsapp/outbound/status.service.js');
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
    it('records notifications claimed together once each and in order: a new number once, a redelivery once, replies and reactions within the round', async () => {
      const db = fx.t.app.get(DataSource);
      const start = Math.floor(Date.now() / 1000);
      const message = (from: string, id: string, second: number, content: Record<string, unknown>) => ({
        object: 'whatsapp_business_account',
        entry: [
          {
            changes: [
              {
                field: 'messages',
                value: {
                  contacts: [{ profile: { name: `Burst ${from.slice(-1)}` }, wa_id: from }],
                  messages: [{ from, id, timestamp: String(start + second), ...content }],
                },
              },
            ],
          },
        ],
      });
      const text = (body: string) => ({ type: 'text', text: { body } });
      const [a, b] = ['14155550601', '14155550602'];
      const notifications = [
        message(a, 'wamid.burst-a1', 0, text('a1')),
        message(a, 'wamid.burst-a2', 1, text('a2')),
        message(b, 'wamid.burst-b1', 2, text('b1')),
        message(a, 'wamid.burst-a2', 1, text('a2')), // Meta redelivers
        message(b, 'wamid.burst-b2', 3, { ...text('b2'), context: { from: a, id: 'wamid.burst-a1' } }),
        message(a, 'wamid.burst-a3', 4, { type: 'reaction', reaction: { message_id: 'wamid.burst-b1', emoji: '👍' } }),
        message(a, 'wamid.burst-a4', 5, text('a4')),
      ];
      // Written in one statement, so that the worker claims them in one round.
      await db.query(
        `INSERT INTO whatsapp_intake (id, workspace_id, channel_id, body, received_at)
         SELECT gen_random_uuid(), $1, $2, body, now() + make_interval(secs => i / 1000.0)
           FROM unnest($3::text[]) WITH ORDINALITY AS n(body, i)`,
        [fx.a.workspaceId, cloud.id, notifications.map((n) => JSON.stringify(n))],
      );
      const ids = ['wamid.burst-a1', 'wamid.burst-a2', 'wamid.burst-b1', 'wamid.burst-b2', 'wamid.burst-a3', 'wamid.burst-a4'];
      const hooks = () =>
        fx.receiver
          .at('/cloud')
          .map((r) => verifySignature(r, fx.a.webhookSecret) as { messageId: string; contactId: string; reactedMessageId: string | null })
          .filter((p) => ids.includes(p.messageId));
      await waitFor(
        async () => (new Set(hooks().map((p) => p.messageId)).size === ids.length ? true : undefined),
        10_000,
        'the burst webhooks',
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.deepEqual(
        hooks()
          .map((p) => p.messageId)
          .sort(),
        [...ids].sort(),
        'one webhook per message',
      );

      const events = await db.query<
        Array<{ id: string; source_id: string; contact_id: string; body: string; reply_to: { repliedToEventId: string } | null }>
      >(
        `SELECT id, source_id, contact_id, body, reply_to FROM conversation_events
          WHERE workspace_id = $1 AND source_id LIKE 'wamid.burst-%' ORDER BY creation_time, id`,
        [fx.a.workspaceId],
      );
      assert.deepEqual(
        events.map((e) => e.source_id),
        ['wamid.burst-a1', 'wamid.burst-a2', 'wamid.burst-b1', 'wamid.burst-b2', 'wamid.burst-a3', 'wamid.burst-a4'],
      );
      const byId = new Map(events.map((e) => [e.source_id, e]));
      const contacts = await db.query<Array<{ id: string; phone_number: string; name: string }>>(
        `SELECT id, phone_number, name FROM contacts WHERE workspace_id = $1 AND phone_number IN ('+14155550601', '+14155550602') ORDER BY phone_number`,
        [fx.a.workspaceId],
      );
      assert.deepEqual(
        contacts.map((c) => [c.phone_number, c.name]),
        [
          ['+14155550601', 'Burst 1'],
          ['+14155550602', 'Burst 2'],
        ],
      );
      assert.ok(
        ['wamid.burst-a1', 'wamid.burst-a2', 'wamid.burst-a3', 'wamid.burst-a4'].every((id) => byId.get(id)!.contact_id === contacts[0].id),
      );
      assert.equal(byId.get('wamid.burst-b2')!.reply_to?.repliedToEventId, byId.get('wamid.burst-a1')!.id);
      assert.equal(hooks().find((p) => p.messageId === 'wamid.burst-a3')!.reactedMessageId, byId.get('wamid.burst-b1')!.id);
      const [conversation] = await db.query<Array<{ last_events_count: number; last_event_preview_body: string }>>(
        `SELECT last_events_count, last_event_preview_body FROM conversations WHERE workspace_id = $1 AND contact_id = $2 AND channel_id = $3`,
        [fx.a.workspaceId, contacts[0].id, cloud.id],
      );
      assert.deepEqual(conversation, { last_events_count: 4, last_event_preview_body: 'a4' });
      const intake = await db.query<Array<{ processed: string; attempts: number[] }>>(
        `SELECT count(processed_at) AS processed, array_agg(DISTINCT attempts) AS attempts FROM whatsapp_intake WHERE body LIKE '%wamid.burst-%'`,
      );
      assert.deepEqual(intake[0], { processed: String(notifications.length), attempts: [1] });
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
