import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeWithApp } from '../support/describe-with-app.js';
import { createChannel, waitFor } from '../support/fixtures.js';
import { verifySignature, WebhookReceiver } from '../support/webhook-receiver.js';

describeWithApp(
  'Free-form sends, the service window, and inbound messages (sandbox)',
  {
    peers: { receiver: () => WebhookReceiver.start() },
    env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', RATE_LIMIT_REQUESTS_PER_MINUTE: '100000' },
  },
  (fx) => {
    let channel: { id: string };

    const sandboxRequests = async () =>
      (await fx.t.admin.get(`/admin/v1/channels/${channel.id}/sandbox/messages?MaxResultCount=100`)).body.items.map(
        (m: { request: unknown }) => m.request,
      );
    const inbound = async (body: Record<string, unknown>) => {
      const res = await fx.t.admin.post(`/admin/v1/channels/${channel.id}/sandbox/inbound`, body);
      assert.equal(res.status, 202, res.text);
      return res.body.messageId as string;
    };

    before(async () => {
      channel = await createChannel(fx.t, fx.a.workspaceId, { webhookUrl: fx.receiver.url('/wa') });
    });

    it('refuses a free-form send while the service window is closed', async () => {
      const res = await fx.a.api.post('/v1/whatsapp/service-account/sendText', {
        channelId: channel.id,
        toNumber: '14155550401',
        text: 'Hello',
      });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, 'WhatsApp:ServiceWindowExpired');
    });

    it('records an inbound quick-reply, opens the window, and sends the signed WhatsApp Message Webhook with the payload', async () => {
      const messageId = await inbound({ fromNumber: '14155550401', type: 'button', text: 'Stop updates', payload: 'STOP_A17' });
      const delivered = await waitFor(async () => fx.receiver.at('/wa')[0], 10_000, 'the WhatsApp Message Webhook');
      assert.equal(delivered.headers['webhook-event'], 'whatsapp.message');
      const payload = verifySignature(delivered, fx.a.webhookSecret) as Record<string, unknown>;
      assert.equal(payload.messageId, messageId);
      assert.equal(payload.direction, 'Inbound');
      assert.equal(payload.messageType, 'Interactive');
      assert.equal(payload.body, 'STOP_A17');
      assert.equal(payload.buttonPayload, 'STOP_A17');
      assert.equal(payload.buttonText, 'Stop updates');
      assert.equal(payload.channelId, channel.id);
      const conversation = (
        await fx.a.api.post('/v2/conversations/service-account/create', { channelId: channel.id, phoneNumber: '+14155550401' })
      ).body.conversation;
      assert.equal(conversation.lastEventDirection, 1);
      const lost = await fx.a.api.get(`/v2/conversations/service-account/channels/${channel.id}?IsLost=true`);
      assert.ok(
        lost.body.items.some((c: { id: string }) => c.id === conversation.id),
        'an unanswered inbound message is lost',
      );
    });

    it('links an inbound reply to the message it quotes', async () => {
      const { InboundService } = await import('../../src/whatsapp/inbound/inbound.service.js');
      const inboundService = fx.t.app.get(InboundService);
      const at = new Date().toISOString();
      await inboundService.receive(fx.a.workspaceId, channel.id, {
        providerMessageId: 'wamid.q-1',
        fromNumber: '+14155550403',
        type: 'text',
        text: 'first',
        receivedAt: at,
      });
      await inboundService.receive(fx.a.workspaceId, channel.id, {
        providerMessageId: 'wamid.q-2',
        fromNumber: '+14155550403',
        type: 'text',
        text: 'about that',
        replyToMessageId: 'wamid.q-1',
        receivedAt: at,
      });
      const conversation = (
        await fx.a.api.post('/v2/conversations/service-account/create', { channelId: channel.id, phoneNumber: '+14155550403' })
      ).body.conversation;
      const events = (await fx.a.api.get(`/v2/conversations/service-account/${conversation.id}/timeline`)).body.items;
      const first = events.find((e: { sourceId: string }) => e.sourceId === 'wamid.q-1');
      const reply = events.find((e: { sourceId: string }) => e.sourceId === 'wamid.q-2');
      assert.deepEqual(reply.replyTo, { repliedToEventId: first.eventId, repliedToBody: 'first', repliedToProviderMessageId: 'wamid.q-1' });
      assert.equal(first.replyTo, null);
    });

    it('ignores the same inbound message delivered twice', async () => {
      const { InboundService } = await import('../../src/whatsapp/inbound/inbound.service.js');
      const message = {
        providerMessageId: 'wamid.dup-1',
        fromNumber: '+14155550402',
        type: 'text' as const,
        text: 'hi',
        receivedAt: new Date().toISOString(),
      };
      await fx.t.app.get(InboundService).receive(fx.a.workspaceId, channel.id, message);
      await fx.t.app.get(InboundService).receive(fx.a.workspaceId, channel.id, message);
      const conversation = (
        await fx.a.api.post('/v2/conversations/service-account/create', { channelId: channel.id, phoneNumber: '+14155550402' })
      ).body.conversation;
      const timeline = await fx.a.api.get(`/v2/conversations/service-account/${conversation.id}/timeline`);
      assert.equal(timeline.body.totalCount, 1);
    });

    it('sends text, image, audio, video, file and interactive buttons inside the window, as Cloud API requests', async () => {
      const to = '14155550401';
      const sends: Array<[string, Record<string, unknown>]> = [
        ['sendText', { text: 'Thanks!', previewUrl: true }],
        ['sendImage', { imageUrl: 'https://img.example.com/a.png', caption: 'Receipt' }],
        ['sendAudio', { audioUrl: 'https://cdn.example.com/a.ogg' }],
        ['sendVideo', { videoUrl: 'https://cdn.example.com/v.mp4' }],
        ['sendFile', { fileUrl: 'https://cdn.example.com/i.pdf', fileName: 'invoice.pdf' }],
        [
          'sendInteractiveButtons',
          {
            body: 'Rate us',
            footer: 'Thanks',
            buttons: [
              { id: 'good', title: 'Good' },
              { id: 'bad', title: 'Bad' },
            ],
          },
        ],
      ];
      for (const [operation, body] of sends) {
        const res = await fx.a.api.post(`/v1/whatsapp/service-account/${operation}`, { ChannelId: channel.id, ToNumber: to, ...body });
        assert.equal(res.status, 200, `${operation}: ${res.text}`);
        assert.equal(res.body.status, 'accepted');
      }
      const requests = await waitFor(async () => {
        const all = await sandboxRequests();
        return all.length >= 6 ? all : undefined;
      });
      const byType = Object.fromEntries(requests.map((r: Record<string, unknown>) => [r.type, r]));
      assert.deepEqual(byType.text, {
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to,
        type: 'text',
        text: { body: 'Thanks!', preview_url: true },
      });
      assert.deepEqual(byType.image.image, { link: 'https://img.example.com/a.png', caption: 'Receipt' });
      assert.deepEqual(byType.audio.audio, { link: 'https://cdn.example.com/a.ogg' });
      assert.deepEqual(byType.video.video, { link: 'https://cdn.example.com/v.mp4' });
      assert.deepEqual(byType.document.document, { link: 'https://cdn.example.com/i.pdf', filename: 'invoice.pdf' });
      assert.deepEqual(byType.interactive.interactive, {
        type: 'button',
        body: { text: 'Rate us' },
        footer: { text: 'Thanks' },
        action: {
          buttons: [
            { type: 'reply', reply: { id: 'good', title: 'Good' } },
            { type: 'reply', reply: { id: 'bad', title: 'Bad' } },
          ],
        },
      });
    });

    it('refuses bad free-form input', async () => {
      const base = { channelId: channel.id, toNumber: '14155550401' };
      const cases: Array<[string, Record<string, unknown>]> = [
        ['sendText', { ...base, text: '' }],
        ['sendText', { ...base, text: 'x'.repeat(4097) }],
        ['sendImage', { ...base, imageUrl: 'not a url' }],
        ['sendFile', { ...base, fileUrl: 'https://x.example.com/f.pdf' }],
        ['sendInteractiveButtons', { ...base, body: 'x', buttons: [] }],
        [
          'sendInteractiveButtons',
          {
            ...base,
            body: 'x',
            buttons: [
              { id: 'a', title: 'A' },
              { id: 'a', title: 'B' },
            ],
          },
        ],
        ['sendInteractiveButtons', { ...base, body: 'x', buttons: [1, 2, 3, 4].map((n) => ({ id: `b${n}`, title: 'B' })) }],
        ['sendInteractiveButtons', { ...base, body: 'x', buttons: [{ id: 'a', title: 'A title longer than twenty' }] }],
      ];
      for (const [operation, body] of cases) {
        const res = await fx.a.api.post(`/v1/whatsapp/service-account/${operation}`, body);
        assert.equal(res.status, 400, `${operation} ${JSON.stringify(body).slice(0, 80)} → ${res.status}`);
      }
    });
  },
);
