import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeWithApp } from '../support/describe-with-app.js';
import { createChannel, waitFor, type WorkspaceFixture } from '../support/fixtures.js';
import { FakeCloudApi, TEMPLATE_FIELDS } from '../support/fake-cloud-api.js';

const ORDER_TEMPLATE = {
  name: 'order_update',
  language: 'en_US',
  category: 'UTILITY',
  status: 'APPROVED',
  components: [
    { type: 'HEADER', format: 'IMAGE', example: { header_handle: ['https://cdn.example.com/sample.jpg'] } },
    { type: 'BODY', text: 'Hi {{1}}, your order {{2}} is on its way.' },
    { type: 'FOOTER', text: 'Reply STOP to opt out' },
    {
      type: 'BUTTONS',
      buttons: [
        { type: 'URL', text: 'Track', url: 'https://shop.example.com/track/{{1}}' },
        { type: 'QUICK_REPLY', text: 'Stop updates' },
        { type: 'PHONE_NUMBER', text: 'Call us', phone_number: '+14155550100' },
      ],
    },
  ],
};

const SEND = (channelId: string, extra: Record<string, unknown> = {}) => ({
  ChannelId: channelId,
  TemplateName: 'order_update',
  Language: 'en_US',
  ToNumber: '966501234567',
  Parameters: [
    {
      Type: 'Body',
      Values: [
        { Type: 'text', Text: 'Sara' },
        { Type: 'text', Text: 'A-17' },
      ],
    },
    { Type: 'Buttons', SubType: 'url', Index: '0', Values: [{ Type: 'text', Text: 'A-17' }] },
    { Type: 'Buttons', SubType: 'quick_reply', Index: '1', Values: [{ Type: 'text', Text: 'STOP_A17' }] },
  ],
  ...extra,
});

describeWithApp(
  'Send Template and List Templates',
  {
    peers: { fake: () => FakeCloudApi.start() },
    env: ({ fake }) => ({ WHATSAPP_GRAPH_URL: fake.url, RATE_LIMIT_REQUESTS_PER_MINUTE: '100000' }),
  },
  (fx) => {
    let sandbox: { id: string };
    let cloud: { id: string };

    const eventOf = async (ws: WorkspaceFixture, contactId: string, eventId: string) => {
      const conversations = await ws.api.post('/v2/conversations/service-account/create', {
        channelId: sandbox.id,
        phoneNumber: '+966501234567',
      });
      const timeline = await ws.api.get(
        `/v2/conversations/service-account/${conversations.body.conversation.id}/timeline?MaxResultCount=100`,
      );
      return timeline.body.items.find((e: { eventId: string }) => e.eventId === eventId);
    };

    before(async () => {
      sandbox = await createChannel(fx.t, fx.a.workspaceId, { name: 'Sandbox WA' });
      const created = await fx.t.admin.post(`/admin/v1/channels/${sandbox.id}/templates`, ORDER_TEMPLATE);
      assert.equal(created.status, 200, created.text);
      cloud = (
        await fx.t.admin.post(`/admin/v1/workspaces/${fx.a.workspaceId}/channels`, {
          name: 'Cloud WA',
          type: 2,
          phoneNumber: '+14155550777',
          whatsApp: {
            provider: 'cloud-api',
            phoneNumberId: '1098765',
            wabaId: '555',
            accessToken: 'EAAG-token',
            appSecret: 's',
            verifyToken: 'v',
          },
        })
      ).body;
    });

    it('lists templates with their parameters', async () => {
      const res = await fx.a.api.get(`/v1/whatsapp/service-account/templates?ChannelId=${sandbox.id}`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.totalCount, 1);
      const template = res.body.items[0];
      assert.equal(template.body, 'Hi {{1}}, your order {{2}} is on its way.');
      assert.deepEqual(template.header, { format: 'IMAGE', text: null, exampleUrl: 'https://cdn.example.com/sample.jpg' });
      assert.deepEqual(
        template.buttons.map((x: { type: string; isDynamic: boolean }) => [x.type, x.isDynamic]),
        [
          ['URL', true],
          ['QUICK_REPLY', true],
          ['PHONE_NUMBER', false],
        ],
      );
      assert.deepEqual(
        template.parameters.map((p: { component: string; index: number; subType: string | null; type: string }) => [
          p.component,
          p.index,
          p.subType,
          p.type,
        ]),
        [
          ['Header', 0, null, 'image'],
          ['Body', 1, null, 'text'],
          ['Body', 2, null, 'text'],
          ['Buttons', 0, 'url', 'text'],
          ['Buttons', 1, 'quick_reply', 'text'],
        ],
      );
      assert.equal((await fx.b.api.get('/v1/whatsapp/service-account/templates')).body.totalCount, 0);
    });

    it('lists templates of a channel id that is not a WhatsApp channel of the workspace as ChannelNotFoundError', async () => {
      const voiceOnly = await createChannel(fx.t, fx.a.workspaceId, {
        name: 'Voice list',
        type: 1,
        whatsApp: undefined,
        phoneNumber: '+14155550889',
      });
      for (const [ws, channelId] of [
        [fx.b, sandbox.id],
        [fx.a, voiceOnly.id],
        [fx.a, '0190a1b2-0000-7000-8000-000000000000'],
      ] as const) {
        const res = await ws.api.get(`/v1/whatsapp/service-account/templates?ChannelId=${channelId}`);
        assert.equal(res.status, 404, res.text);
        assert.equal(res.body.error.code, 'Channels:ChannelNotFound');
        assert.equal(res.body.message, `Channel '${channelId}' was not found.`);
      }
    });

    it('accepts a template (PascalCase body), queues it, and the sandbox receives the exact Cloud API request', async () => {
      const res = await fx.a.api.post('/v1/whatsapp/service-account/sendTemplate', SEND(sandbox.id));
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(Object.keys(res.body).sort(), ['contactId', 'conversationEventId', 'message', 'status']);
      assert.equal(res.body.status, 'accepted');
      const sent = await waitFor(async () => {
        const page = await fx.t.admin.get(`/admin/v1/channels/${sandbox.id}/sandbox/messages`);
        return page.body.totalCount > 0 ? page.body.items[0] : undefined;
      });
      assert.deepEqual(sent.request, {
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: '966501234567',
        type: 'template',
        template: {
          name: 'order_update',
          language: { code: 'en_US' },
          components: [
            { type: 'header', parameters: [{ type: 'image', image: { link: 'https://cdn.example.com/sample.jpg' } }] },
            {
              type: 'body',
              parameters: [
                { type: 'text', text: 'Sara' },
                { type: 'text', text: 'A-17' },
              ],
            },
            { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: 'A-17' }] },
            { type: 'button', sub_type: 'quick_reply', index: '1', parameters: [{ type: 'payload', payload: 'STOP_A17' }] },
          ],
        },
      });
      const event = await waitFor(async () => {
        const e = await eventOf(fx.a, res.body.contactId, res.body.conversationEventId);
        return e?.status === 'Sent' ? e : undefined;
      });
      assert.equal(event.sourceType, 2);
      assert.equal(event.direction, 2);
      assert.match(event.sourceId, /^wamid\./);
      assert.equal(event.body, 'Hi Sara, your order A-17 is on its way.');
      const contact = await fx.a.api.get(`/v1/contacts/${res.body.contactId}`);
      assert.equal(contact.body.phoneNumber, '+966501234567', 'the contact was created');
    });

    it('sends once for a repeated Idempotency-Key', async () => {
      const before = (await fx.t.admin.get(`/admin/v1/channels/${sandbox.id}/sandbox/messages`)).body.totalCount;
      const first = await fx.a.api.post('/v1/whatsapp/service-account/sendTemplate', SEND(sandbox.id, { ToNumber: '14155550123' }), {
        'Idempotency-Key': 'order-A17',
      });
      const again = await fx.a.api.post('/v1/whatsapp/service-account/sendTemplate', SEND(sandbox.id, { ToNumber: '14155550123' }), {
        'Idempotency-Key': 'order-A17',
      });
      assert.deepEqual(again.body, first.body);
      await waitFor(async () => (await fx.t.admin.get(`/admin/v1/channels/${sandbox.id}/sandbox/messages`)).body.totalCount === before + 1);
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal((await fx.t.admin.get(`/admin/v1/channels/${sandbox.id}/sandbox/messages`)).body.totalCount, before + 1);
    });

    it('refuses unknown templates, mismatched parameters and channels that are not WhatsApp channels of the workspace', async () => {
      const unknown = await fx.a.api.post('/v1/whatsapp/service-account/sendTemplate', SEND(sandbox.id, { TemplateName: 'nope' }));
      assert.equal(unknown.status, 400);
      assert.equal(unknown.body.error.code, 'WhatsApp:TemplateNotFound');
      const wrongLanguage = await fx.a.api.post('/v1/whatsapp/service-account/sendTemplate', SEND(sandbox.id, { Language: 'ar' }));
      assert.equal(wrongLanguage.body.error.code, 'WhatsApp:TemplateNotFound');
      const mismatch = await fx.a.api.post(
        '/v1/whatsapp/service-account/sendTemplate',
        SEND(sandbox.id, { Parameters: [{ Type: 'Body', Values: [{ Type: 'text', Text: 'only one' }] }] }),
      );
      assert.equal(mismatch.status, 400);
      assert.equal(mismatch.body.error.code, 'WhatsApp:TemplateParametersMismatch');
      assert.match(mismatch.body.message, /^Body: /);
      const voiceOnly = await createChannel(fx.t, fx.a.workspaceId, {
        name: 'Voice',
        type: 1,
        whatsApp: undefined,
        phoneNumber: '+14155550888',
      });
      const voice = await fx.a.api.post('/v1/whatsapp/service-account/sendTemplate', SEND(voiceOnly.id));
      assert.equal(voice.status, 404);
      assert.equal(voice.body.error.code, 'Channels:ChannelNotFound');
      const foreign = await fx.b.api.post('/v1/whatsapp/service-account/sendTemplate', SEND(sandbox.id));
      assert.equal(foreign.status, 404);
      assert.equal(foreign.body.error.code, 'Channels:ChannelNotFound');
      const badNumber = await fx.a.api.post('/v1/whatsapp/service-account/sendTemplate', SEND(sandbox.id, { ToNumber: '123' }));
      assert.equal(badNumber.status, 400);
    });

    it('syncs a cloud-api channel’s templates from its WhatsApp Business Account, following the cursor', async () => {
      fx.fake.templatePages = [{ data: [ORDER_TEMPLATE] }];
      assert.deepEqual((await fx.t.admin.post(`/admin/v1/channels/${cloud.id}/templates/sync`)).body, { synced: 1 });
      const listed = async () =>
        Object.fromEntries(
          (await fx.a.api.get(`/v1/whatsapp/service-account/templates?ChannelId=${cloud.id}`)).body.items.map(
            (x: { name: string; status: string; id: string }) => [x.name, [x.status, x.id]],
          ),
        );
      const [, orderId] = (await listed()).order_update;
      assert.equal((await fx.a.api.post('/v1/whatsapp/service-account/sendTemplate', SEND(cloud.id))).status, 200);

      fx.fake.requests.length = 0;
      fx.fake.templatePages = [
        { data: [{ ...ORDER_TEMPLATE, name: 'shipping_update' }] },
        { data: [{ ...ORDER_TEMPLATE, status: 'PAUSED' }] },
      ];
      const res = await fx.t.admin.post(`/admin/v1/channels/${cloud.id}/templates/sync`);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, { synced: 2 });
      assert.deepEqual(
        fx.fake.requests.filter((r) => r.method === 'GET').map((r) => [r.path, r.auth]),
        [
          [`/v25.0/555/message_templates?fields=${TEMPLATE_FIELDS}&limit=100`, 'Bearer EAAG-token'],
          [`/v25.0/555/message_templates?fields=${encodeURIComponent(TEMPLATE_FIELDS)}&limit=100&after=1`, 'Bearer EAAG-token'],
        ],
      );
      const synced = await listed();
      assert.deepEqual(synced.order_update, ['PAUSED', orderId], 'the same template, with the account’s status');
      assert.equal(synced.shipping_update[0], 'APPROVED');
      const sandboxSync = await fx.t.admin.post(`/admin/v1/channels/${sandbox.id}/templates/sync`);
      assert.equal(sandboxSync.status, 400);
      // A paused template is no longer sendable: stored, so TemplateNotApproved naming its status (API.md §14).
      const paused = await fx.a.api.post('/v1/whatsapp/service-account/sendTemplate', SEND(cloud.id));
      assert.equal(paused.status, 400, paused.text);
      assert.equal(paused.body.error.code, 'WhatsApp:TemplateNotApproved');
      assert.match(paused.body.error.message, /PAUSED/);
    });
  },
);
