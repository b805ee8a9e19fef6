import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import Redis from 'ioredis';
import { DataSource } from 'typeorm';
import { describeWithApp } from '../support/describe-with-app.js';
import { waitFor } from '../support/fixtures.js';
import { FakeCloudApi, type CloudRequest } from '../support/fake-cloud-api.js';
import { verifySignature, WebhookReceiver } from '../support/webhook-receiver.js';

const TOKEN = 'EAAG-cloud-token';
const APP_SECRET = 'cloud-app-secret';
const PHONE_NUMBER_ID = '1098765';

const TEMPLATE = {
  name: 'order_ready',
  language: 'en_US',
  category: 'UTILITY',
  status: 'APPROVED',
  components: [
    { type: 'HEADER', format: 'DOCUMENT', example: { header_handle: ['https://cdn.example.com/sample.pdf'] } },
    { type: 'BODY', text: 'Hi {{1}}, order {{2}} is ready.' },
    {
      type: 'BUTTONS',
      buttons: [
        { type: 'URL', text: 'Track', url: 'https://shop.example.com/t/{{1}}' },
        { type: 'QUICK_REPLY', text: 'Thanks' },
      ],
    },
  ],
};

const templateSend = (channelId: string, toNumber: string) => ({
  channelId,
  templateName: TEMPLATE.name,
  language: TEMPLATE.language,
  toNumber,
  parameters: [
    { type: 'Header', values: [{ type: 'document', documentUrl: 'https://cdn.example.com/r.pdf', documentFilename: 'receipt.pdf' }] },
    {
      type: 'Body',
      values: [
        { type: 'text', text: 'Sara' },
        { type: 'text', text: 'A-17' },
      ],
    },
    { type: 'Buttons', subType: 'url', index: '0', values: [{ type: 'text', text: 'A-17' }] },
    { type: 'Buttons', subType: 'quick_reply', index: '1', values: [{ type: 'text', text: 'THANKS_A17' }] },
  ],
});

const answeredId = (request: CloudRequest) => (request.answer?.body as { messages: Array<{ id: string }> }).messages[0].id;

describeWithApp(
  'WhatsApp through the cloud-api provider (a fake Cloud API on 127.0.0.1)',
  {
    peers: { fake: () => FakeCloudApi.start(), receiver: () => WebhookReceiver.start() },
    env: ({ fake }) => ({
      WHATSAPP_GRAPH_URL: fake.url,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      RATE_LIMIT_REQUESTS_PER_MINUTE: '100000',
    }),
  },
  (fx) => {
    let channel: { id: string };

    const send = (operation: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      fx.a.api.post(`/v1/whatsapp/service-account/${operation}`, body, headers);
    const eventOf = async (phone: string, eventId: string) => {
      const conversation = (await fx.a.api.post('/v2/conversations/service-account/create', { channelId: channel.id, phoneNumber: phone }))
        .body.conversation;
      const page = await fx.a.api.get(`/v2/conversations/service-account/${conversation.id}/timeline?MaxResultCount=100`);
      return page.body.items.find((e: { eventId: string }) => e.eventId === eventId);
    };
    const eventWithStatus = (phone: string, eventId: string, status: string) =>
      waitFor(
        async () => {
          const event = await eventOf(phone, eventId);
          return event?.status === status ? event : undefined;
        },
        10_000,
        `event ${eventId} ${status}`,
      );
    const webhooksOf = (messageId: string) =>
      fx.receiver
        .at('/wa')
        .map((r) => verifySignature(r, fx.a.webhookSecret) as Record<string, unknown>)
        .filter((p) => p.messageId === messageId);
    /** Time for a retry that must not happen: the first backoff is 1 s. */
    const noRetryWindow = () => new Promise((resolve) => setTimeout(resolve, 1300));

    before(async () => {
      const created = await fx.t.admin.post(`/admin/v1/workspaces/${fx.a.workspaceId}/channels`, {
        name: 'Cloud WA',
        type: 2,
        phoneNumber: '+14155550777',
        webhookUrl: fx.receiver.url('/wa', 'localhost'),
        whatsApp: {
          provider: 'cloud-api',
          phoneNumberId: PHONE_NUMBER_ID,
          wabaId: '555',
          accessToken: TOKEN,
          appSecret: APP_SECRET,
          verifyToken: 'v',
        },
      });
      assert.equal(created.status, 200, created.text);
      channel = created.body;
      fx.fake.templatePages = [{ data: [TEMPLATE] }];
      const synced = await fx.t.admin.post(`/admin/v1/channels/${channel.id}/templates/sync`);
      assert.deepEqual(synced.body, { synced: 1 }, synced.text);
    });

    it('sends every message type with the channel’s token, exactly as the Cloud API expects, each becoming Sent with the provider’s id', async () => {
      const to = '14155550601';
      // The contact writes first (a signed Meta notification), which opens the 24 h window for free-form sends.
      const notified = await FakeCloudApi.notify(
        `${fx.t.baseUrl}/v1/whatsapp/webhooks/${channel.id}`,
        APP_SECRET,
        FakeCloudApi.inboundText(to, 'wamid.in-601', 'hello'),
      );
      assert.equal(notified, 200);
      await waitFor(async () => webhooksOf('wamid.in-601').length > 0, 10_000, 'the inbound message');
      const envelope = { messaging_product: 'whatsapp', recipient_type: 'individual', to };
      const cases: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
        ['sendText', { text: 'Thanks!', previewUrl: true }, { type: 'text', text: { body: 'Thanks!', preview_url: true } }],
        [
          'sendImage',
          { imageUrl: 'https://img.example.com/a.png', caption: 'Receipt' },
          { type: 'image', image: { link: 'https://img.example.com/a.png', caption: 'Receipt' } },
        ],
        ['sendAudio', { audioUrl: 'https://cdn.example.com/a.ogg' }, { type: 'audio', audio: { link: 'https://cdn.example.com/a.ogg' } }],
        [
          'sendVideo',
          { videoUrl: 'https://cdn.example.com/v.mp4', caption: 'Clip' },
          { type: 'video', video: { link: 'https://cdn.example.com/v.mp4', caption: 'Clip' } },
        ],
        [
          'sendFile',
          { fileUrl: 'https://cdn.example.com/i.pdf', fileName: 'invoice.pdf' },
          { type: 'document', document: { link: 'https://cdn.example.com/i.pdf', filename: 'invoice.pdf' } },
        ],
        [
          'sendInteractiveButtons',
          {
            header: 'Order A-17',
            body: 'Rate us',
            footer: 'Thanks',
            buttons: [
              { id: 'good', title: 'Good' },
              { id: 'bad', title: 'Bad' },
            ],
          },
          {
            type: 'interactive',
            interactive: {
              type: 'button',
              header: { type: 'text', text: 'Order A-17' },
              body: { text: 'Rate us' },
              footer: { text: 'Thanks' },
              action: {
                buttons: [
                  { type: 'reply', reply: { id: 'good', title: 'Good' } },
                  { type: 'reply', reply: { id: 'bad', title: 'Bad' } },
                ],
              },
            },
          },
        ],
        [
          'sendTemplate',
          templateSend(channel.id, to),
          {
            type: 'template',
            template: {
              name: 'order_ready',
              language: { code: 'en_US' },
              components: [
                {
                  type: 'header',
                  parameters: [{ type: 'document', document: { link: 'https://cdn.example.com/r.pdf', filename: 'receipt.pdf' } }],
                },
                {
                  type: 'body',
                  parameters: [
                    { type: 'text', text: 'Sara' },
                    { type: 'text', text: 'A-17' },
                  ],
                },
                { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: 'A-17' }] },
                { type: 'button', sub_type: 'quick_reply', index: '1', parameters: [{ type: 'payload', payload: 'THANKS_A17' }] },
              ],
            },
          },
        ],
      ];
      for (const [operation, body, expected] of cases) {
        const before = fx.fake.sends.length;
        const res = await send(operation, { channelId: channel.id, toNumber: to, ...body });
        assert.equal(res.status, 200, `${operation}: ${res.text}`);
        const event = await eventWithStatus(`+${to}`, res.body.conversationEventId, 'Sent');
        const received = fx.fake.sends.slice(before);
        assert.equal(received.length, 1, `${operation}: one provider call`);
        const [request] = received;
        assert.equal(request.path, `/v25.0/${PHONE_NUMBER_ID}/messages`);
        assert.equal(request.auth, `Bearer ${TOKEN}`);
        assert.deepEqual(request.body, { ...envelope, ...expected }, operation);
        assert.equal(event.sourceId, answeredId(request), `${operation}: the provider's message id`);
      }
      const conversation = (
        await fx.a.api.post('/v2/conversations/service-account/create', { channelId: channel.id, phoneNumber: `+${to}` })
      ).body.conversation;
      assert.deepEqual(
        [
          conversation.lastEventsCount,
          conversation.lastEventDirection,
          conversation.lastEventSourceType,
          conversation.lastEventStatus,
          conversation.lastEventPreviewBody,
        ],
        [1 + cases.length, 2, 2, 'Sent', 'Hi Sara, order A-17 is ready.'],
        'the conversation shows its last event',
      );
    });

    it('refuses a free-form send to a known contact whose window is closed, writing nothing', async () => {
      const to = '14155550640';
      const template = await send('sendTemplate', templateSend(channel.id, to));
      assert.equal(template.status, 200, template.text);
      const refused = await send('sendText', { channelId: channel.id, toNumber: to, text: 'Hello again' });
      assert.equal(refused.status, 400);
      assert.equal(refused.body.error.code, 'WhatsApp:ServiceWindowExpired');
      const conversation = (
        await fx.a.api.post('/v2/conversations/service-account/create', { channelId: channel.id, phoneNumber: `+${to}` })
      ).body.conversation;
      assert.equal(conversation.lastEventsCount, 1);
      const timeline = await fx.a.api.get(`/v2/conversations/service-account/${conversation.id}/timeline`);
      assert.equal(timeline.body.totalCount, 1);
    });

    it('retries a provider 500, then records Sent once', async () => {
      const to = '14155550602';
      fx.fake.script.push(FakeCloudApi.error(500, 2, '(#2) Service temporarily unavailable'));
      const res = await send('sendTemplate', templateSend(channel.id, to));
      assert.equal(res.status, 200, res.text);
      const event = await eventWithStatus(`+${to}`, res.body.conversationEventId, 'Sent');
      await noRetryWindow();
      const calls = fx.fake.sendsTo(to);
      assert.equal(calls.length, 2, 'one failed call, one successful');
      assert.deepEqual(calls[1].body, calls[0].body);
      assert.equal(event.sourceId, answeredId(calls[1]));
      assert.deepEqual(
        webhooksOf(event.sourceId).map((p) => p.status),
        ['Sent'],
        'one status change, one WhatsApp Message Webhook',
      );
    });

    it('keeps a delivered status that arrives before the send’s answer is recorded, and applies it once the message is Sent', async () => {
      const to = '14155550693';
      const providerMessageId = 'wamid.early-delivered-693';
      // Meta answers slowly, and its `delivered` notification reaches the edge before our worker has its answer.
      fx.fake.sendLatencyMs = 1500;
      fx.fake.script.push({
        status: 200,
        body: { messaging_product: 'whatsapp', contacts: [{ input: to, wa_id: to }], messages: [{ id: providerMessageId }] },
      });
      try {
        const res = await send('sendTemplate', templateSend(channel.id, to));
        assert.equal(res.status, 200, res.text);
        await waitFor(async () => fx.fake.sendsTo(to).length > 0, 10_000, 'the send at the fake');
        const notified = await FakeCloudApi.notify(
          `${fx.t.baseUrl}/v1/whatsapp/webhooks/${channel.id}`,
          APP_SECRET,
          FakeCloudApi.status(providerMessageId, 'delivered', to),
        );
        assert.equal(notified, 200);
        const event = await eventWithStatus(`+${to}`, res.body.conversationEventId, 'Delivered');
        assert.equal(event.sourceId, providerMessageId);
        await waitFor(async () => webhooksOf(providerMessageId).length === 2, 10_000, 'the Sent and Delivered webhooks');
        assert.deepEqual(
          webhooksOf(providerMessageId).map((p) => p.status),
          ['Sent', 'Delivered'],
          'each status once, in order',
        );
      } finally {
        fx.fake.sendLatencyMs = 0;
      }
    });

    it('tries again when the connection fails before an answer', async () => {
      const to = '14155550604';
      fx.fake.script.push({ status: 0, body: null, drop: true });
      const res = await send('sendTemplate', templateSend(channel.id, to));
      const event = await eventWithStatus(`+${to}`, res.body.conversationEventId, 'Sent');
      const calls = fx.fake.sendsTo(to);
      assert.equal(calls.length, 2);
      assert.equal(event.sourceId, answeredId(calls[1]));
    });

    it('waits at least the Retry-After of a 429 before trying again; a rate-limit code in a 400 is retried too', async () => {
      const to = '14155550603';
      fx.fake.script.push(FakeCloudApi.error(429, 130429, '(#130429) Rate limit hit', { 'retry-after': '2' }));
      fx.fake.script.push(FakeCloudApi.error(400, 131056, '(#131056) (Business Account, Consumer Account) pair rate limit hit'));
      const res = await send('sendTemplate', templateSend(channel.id, to));
      const event = await eventWithStatus(`+${to}`, res.body.conversationEventId, 'Sent');
      const calls = fx.fake.sendsTo(to);
      assert.equal(calls.length, 3);
      const waited = calls[1].receivedAt - calls[0].receivedAt;
      assert.ok(waited >= 2000, `the second attempt came ${waited} ms after the first, before Retry-After: 2`);
      assert.equal(event.sourceId, answeredId(calls[2]));
    });

    it('ends Failed with the passing error’s code when the last attempt fails too', async () => {
      const to = '14155550605';
      // Park the job: the first attempt meets a 503 with a long Retry-After, so Bull holds it.
      fx.fake.script.push(FakeCloudApi.error(503, 2, '(#2) Service temporarily unavailable', { 'retry-after': '3600' }));
      const res = await send('sendTemplate', templateSend(channel.id, to));
      await waitFor(async () => fx.fake.sendsTo(to).length === 1, 10_000, 'the first attempt');
      // The worker's last attempt, as Bull would run it, meets another 503.
      fx.fake.script.push(FakeCloudApi.error(503, 2, '(#2) Service temporarily unavailable'));
      const { SendDelivery } = await import('../../src/whatsapp/outbound/send-delivery.service.js');
      const request = fx.fake.sendsTo(to)[0].body as Record<string, unknown>;
      await fx.t.app.get(SendDelivery).deliver(fx.a.workspaceId, res.body.conversationEventId, channel.id, request, {
        lastAttempt: true,
        keepOutcome: () => Promise.resolve(),
        markSending: () => Promise.resolve(),
      });
      const event = await eventWithStatus(`+${to}`, res.body.conversationEventId, 'Failed');
      assert.equal(event.errorCode, 'WhatsApp:ProviderUnavailable');
      assert.match(event.failureReason, /Cloud API error 2: \(#2\) Service temporarily unavailable/);
    });

    it('a run that takes over from a worker killed while Meta was asked ends Failed WhatsApp:SendInterrupted, without asking again', async () => {
      const to = '14155550606';
      // Park the job as above, then run it as Bull would after the worker asking Meta was killed.
      fx.fake.script.push(FakeCloudApi.error(503, 2, '(#2) Service temporarily unavailable', { 'retry-after': '3600' }));
      const res = await send('sendTemplate', templateSend(channel.id, to));
      await waitFor(async () => fx.fake.sendsTo(to).length === 1, 10_000, 'the first attempt');
      const { SendDelivery } = await import('../../src/whatsapp/outbound/send-delivery.service.js');
      const request = fx.fake.sendsTo(to)[0].body as Record<string, unknown>;
      let marks = 0;
      await fx.t.app.get(SendDelivery).deliver(fx.a.workspaceId, res.body.conversationEventId, channel.id, request, {
        lastAttempt: false,
        interrupted: true,
        keepOutcome: () => Promise.resolve(),
        markSending: () => Promise.resolve(marks++),
      });
      const event = await eventWithStatus(`+${to}`, res.body.conversationEventId, 'Failed');
      assert.equal(event.errorCode, 'WhatsApp:SendInterrupted');
      assert.match(event.failureReason, /may have been delivered, and is not sent again/);
      assert.equal(fx.fake.sendsTo(to).length, 1, 'Meta was not asked again');
      assert.equal(marks, 0, 'nothing was asked, so nothing was marked');
      const failed = await waitFor(
        async () => webhooksOf(res.body.conversationEventId).find((p) => p.status === 'Failed'),
        10_000,
        'the Failed webhook',
      );
      assert.equal(failed.errorCode, 'WhatsApp:SendInterrupted');
    });

    it('two runs of one send at once (its job pushed again while the first run asks Meta, as after Redis came back empty) ask Meta once', async () => {
      const to = '14155550607';
      // Park the job as above: its first attempt met a passing failure, so nothing holds the send.
      fx.fake.script.push(FakeCloudApi.error(503, 2, '(#2) Service temporarily unavailable', { 'retry-after': '3600' }));
      const res = await send('sendTemplate', templateSend(channel.id, to));
      await waitFor(async () => fx.fake.sendsTo(to).length === 1, 10_000, 'the first attempt');
      const { SendDelivery } = await import('../../src/whatsapp/outbound/send-delivery.service.js');
      const { RetryLaterError } = await import('../../src/queue/retry-later.js');
      const messaging = fx.t.app.get(SendDelivery);
      const request = fx.fake.sendsTo(to)[0].body as Record<string, unknown>;
      const run = () =>
        messaging.deliver(fx.a.workspaceId, res.body.conversationEventId, channel.id, request, {
          lastAttempt: false,
          keepOutcome: () => Promise.resolve(),
          markSending: () => Promise.resolve(),
        });
      // The first run is still waiting for Meta's answer when the second starts.
      fx.fake.sendLatencyMs = 500;
      try {
        const first = run();
        await waitFor(async () => fx.fake.sendsTo(to).length === 2, 10_000, 'the first run asking Meta');
        // Redis came back empty: the governor no longer knows this recipient was just sent to.
        const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
        const pairKeys = await redis.keys(`${fx.t.redisPrefix}*governor:${channel.id}:pair:*`);
        assert.ok(pairKeys.length > 0, 'the pair-rate key was found');
        await redis.del(...pairKeys);
        redis.disconnect();
        const second = await run().then(
          () => 'finished',
          (err: unknown) => err,
        );
        assert.ok(second instanceof RetryLaterError, `the second run finds the send claimed and comes back later: ${String(second)}`);
        await first;
      } finally {
        fx.fake.sendLatencyMs = 0;
      }
      assert.equal(fx.fake.sendsTo(to).length, 2, 'the parked attempt and the first run asked Meta, the second did not');
      await eventWithStatus(`+${to}`, res.body.conversationEventId, 'Sent');
      // The second run, come back, finds the message sent and asks nothing.
      await run();
      assert.equal(fx.fake.sendsTo(to).length, 2, 'Meta was not asked a third time');
    });

    it('a scheduled send whose job has no `scheduled` flag (queued by an earlier version) still leaves once, or not at all when cancelled', async () => {
      const { SendDelivery } = await import('../../src/whatsapp/outbound/send-delivery.service.js');
      const messaging = fx.t.app.get(SendDelivery);
      const sendAt = new Date(Date.now() + 3600_000).toISOString();
      // The job as the outbox holds it, run without its flag.
      const run = async (eventId: string) => {
        const [job] = await fx.t.app
          .get(DataSource)
          .query<Array<{ payload: { request: Record<string, unknown>; scheduled?: true } }>>(
            `SELECT payload FROM outbox_messages WHERE payload->>'eventId' = $1`,
            [eventId],
          );
        assert.equal(job.payload.scheduled, true, 'this version flags the job of a scheduled send');
        await messaging.deliver(fx.a.workspaceId, eventId, channel.id, job.payload.request, {
          lastAttempt: false,
          keepOutcome: () => Promise.resolve(),
          markSending: () => Promise.resolve(),
        });
      };
      const to = '14155550608';
      const due = await send('sendTemplate', { ...templateSend(channel.id, to), sendAt });
      assert.equal(due.status, 200, JSON.stringify(due.body));
      await eventWithStatus(`+${to}`, due.body.conversationEventId, 'Scheduled');
      await run(due.body.conversationEventId);
      assert.equal(fx.fake.sendsTo(to).length, 1, 'Meta was asked once');
      await eventWithStatus(`+${to}`, due.body.conversationEventId, 'Sent');

      const cancelledTo = '14155550609';
      const cancelled = await send('sendTemplate', { ...templateSend(channel.id, cancelledTo), sendAt });
      assert.equal((await fx.a.api.delete(`/v1/scheduled/${cancelled.body.conversationEventId}`)).status, 204);
      await run(cancelled.body.conversationEventId);
      assert.equal(fx.fake.sendsTo(cancelledTo).length, 0, 'a cancelled message is not sent');
      await eventWithStatus(`+${cancelledTo}`, cancelled.body.conversationEventId, 'Cancelled');
    });

    it('ends Failed with a stable code and reason on a permanent error, after one call, and tells the signed webhook', async () => {
      const cases: Array<[number, number, string, string, RegExp]> = [
        [
          400,
          132001,
          '(#132001) Template name does not exist in the translation',
          'WhatsApp:TemplateNotFound',
          /does not exist in this language/,
        ],
        [400, 131026, '(#131026) Message Undeliverable', 'WhatsApp:InvalidRecipient', /cannot receive this message/],
        [
          400,
          132000,
          '(#132000) Number of parameters does not match the expected number of params',
          'WhatsApp:TemplateParametersMismatch',
          /do not match the approved template/,
        ],
        [400, 131047, '(#131047) Re-engagement message', 'WhatsApp:ServiceWindowExpired', /More than 24 hours/],
        [401, 190, 'Error validating access token: Session has expired', 'WhatsApp:Unauthorized', /access token was refused/],
        [400, 131009, '(#131009) Parameter value is not valid', 'WhatsApp:InvalidParameter', /refused a value/],
      ];
      const sent: Array<{ to: string; eventId: string; code: number; errorCode: string; reason: RegExp }> = [];
      for (const [i, [status, code, message, errorCode, reason]] of cases.entries()) {
        const to = `1415555061${i}`;
        fx.fake.script.push(FakeCloudApi.error(status, code, message));
        const res = await send('sendTemplate', templateSend(channel.id, to));
        assert.equal(res.status, 200, res.text);
        sent.push({ to, eventId: res.body.conversationEventId, code, errorCode, reason });
        // One at a time: the script answers in arrival order.
        await eventWithStatus(`+${to}`, res.body.conversationEventId, 'Failed');
      }
      await noRetryWindow();
      for (const { to, eventId, code, errorCode, reason } of sent) {
        const event = await eventOf(`+${to}`, eventId);
        assert.equal(event.status, 'Failed');
        assert.equal(event.errorCode, errorCode, `${code}`);
        assert.match(event.failureReason, reason);
        assert.match(event.failureReason, new RegExp(`Cloud API error ${code}`));
        assert.equal(fx.fake.sendsTo(to).length, 1, `${code} is not retried`);
        const [webhook] = await waitFor(async () => {
          const found = webhooksOf(eventId);
          return found.length > 0 ? found : undefined;
        });
        assert.deepEqual(
          [webhook.status, webhook.direction, webhook.messageType, webhook.errorCode, webhook.errorReason],
          ['Failed', 'Outbound', 'Template', errorCode, event.failureReason],
        );
      }
    });

    it('maps the error of a failed status notification the same way', async () => {
      const to = '14155550620';
      const res = await send('sendTemplate', templateSend(channel.id, to));
      const sent = await eventWithStatus(`+${to}`, res.body.conversationEventId, 'Sent');
      const error = {
        code: 131047,
        title: 'Re-engagement message',
        message: 'Re-engagement message',
        error_data: {
          details: 'Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
        },
      };
      const notified = await FakeCloudApi.notify(
        `${fx.t.baseUrl}/v1/whatsapp/webhooks/${channel.id}`,
        APP_SECRET,
        FakeCloudApi.status(sent.sourceId, 'failed', to, [error]),
      );
      assert.equal(notified, 200);
      const failed = await eventWithStatus(`+${to}`, res.body.conversationEventId, 'Failed');
      assert.equal(failed.errorCode, 'WhatsApp:ServiceWindowExpired');
      assert.match(
        failed.failureReason,
        /Cloud API error 131047: Re-engagement message — Message failed to send because more than 24 hours/,
      );
      const statuses = await waitFor(async () => {
        const found = webhooksOf(sent.sourceId);
        return found.length >= 2 ? found : undefined;
      });
      assert.deepEqual(
        statuses.map((p) => [p.status, p.errorCode]),
        [
          ['Sent', null],
          ['Failed', 'WhatsApp:ServiceWindowExpired'],
        ],
      );
    });

    it('calls the provider once for a repeated Idempotency-Key', async () => {
      const to = '14155550630';
      const first = await send('sendTemplate', templateSend(channel.id, to), { 'Idempotency-Key': 'cloud-once' });
      const again = await send('sendTemplate', templateSend(channel.id, to), { 'Idempotency-Key': 'cloud-once' });
      assert.equal(again.status, 200);
      assert.deepEqual(again.body, first.body);
      await eventWithStatus(`+${to}`, first.body.conversationEventId, 'Sent');
      await noRetryWindow();
      assert.equal(fx.fake.sendsTo(to).length, 1);
    });

    it('sends with the new token when another process has just changed the channel’s credentials', async () => {
      const to = '14155550650';
      // Seen (and kept in memory) with the current token.
      const first = await send('sendTemplate', templateSend(channel.id, to));
      await eventWithStatus(`+${to}`, first.body.conversationEventId, 'Sent');
      // Another process rotates the token: the row changes under this process's memory of it.
      const rotated = await fx.t.admin.post(`/admin/v1/workspaces/${fx.a.workspaceId}/channels`, {
        name: 'Rotated',
        type: 2,
        phoneNumber: '+14155550778',
        whatsApp: {
          provider: 'cloud-api',
          phoneNumberId: PHONE_NUMBER_ID,
          wabaId: '555',
          accessToken: 'EAAG-rotated',
          appSecret: APP_SECRET,
          verifyToken: 'v',
        },
      });
      const { DataSource } = await import('typeorm');
      await fx.t.app
        .get(DataSource)
        .query(
          'UPDATE channels SET whats_app_credentials_sealed = (SELECT whats_app_credentials_sealed FROM channels WHERE id = $2) WHERE id = $1',
          [channel.id, rotated.body.id],
        );
      fx.fake.acceptedTokens = ['EAAG-rotated'];
      try {
        const second = await send('sendTemplate', templateSend(channel.id, to));
        const event = await eventWithStatus(`+${to}`, second.body.conversationEventId, 'Sent');
        // With the old token in memory, the refusal sends it to read the channel again: one more call, with the new token.
        const calls = fx.fake.sendsTo(to).slice(1);
        assert.ok(calls.length <= 2, `${calls.length} calls`);
        assert.equal(calls.at(-1)?.auth, 'Bearer EAAG-rotated');
        assert.equal(event.sourceId, answeredId(calls.at(-1)!));
      } finally {
        fx.fake.acceptedTokens = undefined;
      }
    });
  },
);
