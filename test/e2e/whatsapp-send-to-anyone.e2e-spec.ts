import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import * as cloud from '../support/cloud-notifications.js';
import { FakeCloudApi } from '../support/fake-cloud-api.js';
import { describeWithApp } from '../support/describe-with-app.js';
import { createChannel, waitFor } from '../support/fixtures.js';
import { verifySignature, WebhookReceiver } from '../support/webhook-receiver.js';

const TOKEN = 'EAAG-anyone';
const APP_SECRET = 'anyone-app-secret';
const TEMPLATE = {
  name: 'hello',
  language: 'en',
  category: 'UTILITY',
  status: 'APPROVED',
  components: [{ type: 'BODY', text: 'Hello {{1}}' }],
};

type Payload = Record<string, any>;

describeWithApp(
  'Sending to anyone: contactId in place of toNumber, BSUIDs in toNumber, `recipient` when there is no number',
  {
    peers: {
      fake: () => FakeCloudApi.start({ acceptedTokens: [TOKEN] }),
      receiver: () => WebhookReceiver.start(),
    },
    env: ({ fake }) => ({ WHATSAPP_GRAPH_URL: fake.url, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', RATE_LIMIT_REQUESTS_PER_MINUTE: '100000' }),
  },
  (fx) => {
    let channel: { id: string };
    let sandbox: { id: string };

    const send = (operation: string, body: Record<string, unknown>) => fx.a.api.post(`/v1/whatsapp/service-account/${operation}`, body);
    const notify = async (notification: unknown) =>
      assert.equal(await FakeCloudApi.notify(`${fx.t.baseUrl}/v1/whatsapp/webhooks/${channel.id}`, APP_SECRET, notification), 200);
    const webhookOf = (messageId: string) =>
      fx.receiver.signedPayload<Payload>('/wa', fx.a.webhookSecret, (p) => p.messageId === messageId, `the webhook of ${messageId}`);
    const sent = (count: number) =>
      waitFor(async () => (fx.fake.sends.length >= count ? fx.fake.sends[count - 1] : undefined), 10_000, `send ${count}`);

    before(async () => {
      channel = (
        await fx.t.admin.post(`/admin/v1/workspaces/${fx.a.workspaceId}/channels`, {
          name: 'Cloud WA',
          type: 2,
          phoneNumber: '+14155550990',
          webhookUrl: fx.receiver.url('/wa'),
          whatsApp: {
            provider: 'cloud-api',
            phoneNumberId: '77',
            wabaId: '78',
            accessToken: TOKEN,
            appSecret: APP_SECRET,
            verifyToken: 'v',
          },
        })
      ).body;
      fx.fake.templatePages = [{ data: [TEMPLATE] }];
      assert.deepEqual((await fx.t.admin.post(`/admin/v1/channels/${channel.id}/templates/sync`)).body, { synced: 1 });
      sandbox = await createChannel(fx.t, fx.a.workspaceId, { phoneNumber: '+14155550991', webhookUrl: fx.receiver.url('/sandbox') });
      assert.equal((await fx.t.admin.post(`/admin/v1/channels/${sandbox.id}/templates`, TEMPLATE)).status, 200);
    });

    it('addresses a contact known only by BSUID with `recipient`, by toNumber (the BSUID) or by contactId; a contact with a number with `to`', async () => {
      await notify(cloud.inbound({ userId: 'US.9001', name: 'Hidden' }, 'wamid.anyone-in-1', cloud.content.text('hi')));
      const hidden = (await webhookOf('wamid.anyone-in-1')).contactId as string;

      const byUserId = await send('sendText', { channelId: channel.id, toNumber: 'US.9001', text: 'Hello by BSUID' });
      assert.equal(byUserId.status, 200, byUserId.text);
      assert.equal(byUserId.body.contactId, hidden);
      assert.equal(byUserId.body.message, 'Text message accepted for delivery to US.9001.');
      assert.deepEqual((await sent(1)).body, {
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        recipient: 'US.9001',
        type: 'text',
        text: { body: 'Hello by BSUID', preview_url: false },
      });

      const byContact = await send('sendImage', {
        channelId: channel.id,
        contactId: hidden,
        imageUrl: 'https://img.example.com/a.png',
        caption: 'Look',
      });
      assert.equal(byContact.status, 200, byContact.text);
      assert.deepEqual((await sent(2)).body, {
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        recipient: 'US.9001',
        type: 'image',
        image: { link: 'https://img.example.com/a.png', caption: 'Look' },
      });

      // Templates too, and to a BSUID nobody has yet: a contact is created for it.
      const template = await send('sendTemplate', {
        channelId: channel.id,
        templateName: 'hello',
        language: 'en',
        toNumber: 'US.9002',
        parameters: [{ type: 'Body', values: [{ type: 'text', text: 'Ann' }] }],
      });
      assert.equal(template.status, 200, template.text);
      const request = (await sent(3)).body;
      assert.equal(request.recipient, 'US.9002');
      assert.equal(request.to, undefined);
      assert.equal(request.template.name, 'hello');
      const created = (await fx.a.api.get(`/v1/contacts/${template.body.contactId}`)).body;
      assert.deepEqual([created.phoneNumber, created.whatsAppUserId, created.name], [null, 'US.9002', 'US.9002']);

      // A contact with a number (and a BSUID) is addressed by its number, as Meta recommends.
      await notify(cloud.inbound({ phone: '14155550601', userId: 'US.9003' }, 'wamid.anyone-in-2', cloud.content.text('hi')));
      const both = (await webhookOf('wamid.anyone-in-2')).contactId as string;
      assert.equal((await send('sendText', { channelId: channel.id, contactId: both, text: 'By number' })).status, 200);
      const byNumber = (await sent(4)).body;
      assert.deepEqual([byNumber.to, byNumber.recipient], ['14155550601', undefined]);
      assert.equal((await send('sendText', { channelId: channel.id, toNumber: 'US.9003', text: 'Also by number' })).status, 200);
      assert.equal((await sent(5)).body.to, '14155550601');

      // Every send becomes Sent with the provider's id.
      await waitFor(
        async () => {
          const conversation = (await fx.a.api.get(`/v2/conversations/service-account/channels/${channel.id}?ContactIds=${hidden}`)).body
            .items[0];
          const items = (await fx.a.api.get(`/v2/conversations/service-account/${conversation.id}/timeline`)).body.items as Payload[];
          return items.filter((e) => e.direction === 2).every((e) => e.status === 'Sent') ? items : undefined;
        },
        10_000,
        'Sent',
      );
    });

    it('takes contactId and BSUIDs on the newer sends too (location, contacts, list, CTA URL, reaction), each addressed with `recipient`', async () => {
      await notify(cloud.inbound({ userId: 'US.9030', name: 'Nia' }, 'wamid.anyone-in-3', cloud.content.text('hi')));
      const inbound = await webhookOf('wamid.anyone-in-3');
      const nia = inbound.contactId as string;
      const before = fx.fake.sends.length;
      const cases: Array<[string, Record<string, unknown>, string]> = [
        ['sendLocation', { contactId: nia, latitude: 24.7, longitude: 46.7, name: 'Office' }, 'location'],
        [
          'sendContacts',
          { toNumber: 'US.9030', contacts: [{ name: { formattedName: 'Ali' }, phones: [{ phone: '+966501234567' }] }] },
          'contacts',
        ],
        [
          'sendList',
          { contactId: nia, body: 'Pick', buttonText: 'Sizes', sections: [{ rows: [{ id: 's', title: 'Small' }] }] },
          'interactive',
        ],
        ['sendCtaUrl', { toNumber: 'US.9030', body: 'Track', displayText: 'Open', url: 'https://shop.example.com/t/1' }, 'interactive'],
      ];
      for (const [operation, body, type] of cases) {
        const res = await send(operation, { channelId: channel.id, ...body });
        assert.equal(res.status, 200, `${operation}: ${res.text}`);
        assert.equal(res.body.contactId, nia, operation);
        const request = (await sent(before + cases.indexOf(cases.find((c) => c[0] === operation)!) + 1)).body;
        assert.deepEqual([request.recipient, request.to, request.type], ['US.9030', undefined, type], operation);
      }
      const events = await waitFor(
        async () => {
          const conversation = (await fx.a.api.get(`/v2/conversations/service-account/channels/${channel.id}?ContactIds=${nia}`)).body
            .items[0];
          const items = (await fx.a.api.get(`/v2/conversations/service-account/${conversation.id}/timeline`)).body.items as Payload[];
          return items.find((e) => e.sourceId === 'wamid.anyone-in-3') ? items : undefined;
        },
        10_000,
        'the inbound event',
      );
      const reacted = events.find((e) => e.sourceId === 'wamid.anyone-in-3')!;
      const reaction = await send('sendReaction', { channelId: channel.id, contactId: nia, messageId: reacted.eventId, emoji: '👍' });
      assert.equal(reaction.status, 200, reaction.text);
      const request = (await sent(before + cases.length + 1)).body;
      assert.deepEqual(request, {
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        recipient: 'US.9030',
        type: 'reaction',
        reaction: { message_id: 'wamid.anyone-in-3', emoji: '👍' },
      });
      const elsewhere = await send('sendReaction', { channelId: channel.id, toNumber: 'US.9001', messageId: reacted.eventId, emoji: '👍' });
      assert.equal(elsewhere.status, 400);
      assert.equal(elsewhere.body.error.code, 'WhatsApp:InvalidMessageId');
    });

    it('records `recipient` on the sandbox, whose statuses name the BSUID and move the message to Read', async () => {
      const injected = await fx.t.admin.post(`/admin/v1/channels/${sandbox.id}/sandbox/inbound`, {
        fromUserId: 'US.9010',
        type: 'text',
        text: 'hey',
        profileName: 'Sam',
      });
      assert.equal(injected.status, 202, injected.text);
      const contactId = (await webhookOf2(injected.body.messageId)).contactId as string;
      const res = await send('sendText', { channelId: sandbox.id, contactId, text: 'Reply' });
      assert.equal(res.status, 200, res.text);
      const recorded = await waitFor(
        async () => (await fx.t.admin.get(`/admin/v1/channels/${sandbox.id}/sandbox/messages`)).body.items[0],
        10_000,
        'the sandbox request',
      );
      assert.deepEqual(recorded.request, {
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        recipient: 'US.9010',
        type: 'text',
        text: { body: 'Reply', preview_url: false },
      });
      const read = await waitFor(
        async () =>
          fx.receiver
            .at('/sandbox')
            .map((r) => verifySignature(r, fx.a.webhookSecret) as Payload)
            .find((p) => p.status === 'Read' && p.direction === 'Outbound'),
        10_000,
        'Read',
      );
      assert.equal(read.whatsAppUserId, 'US.9010');

      async function webhookOf2(messageId: string) {
        return waitFor(
          async () =>
            fx.receiver
              .at('/sandbox')
              .map((r) => verifySignature(r, fx.a.webhookSecret) as Payload)
              .find((p) => p.messageId === messageId),
          10_000,
          messageId,
        );
      }
    });

    it('takes exactly one of toNumber and contactId; another workspace’s contact is a 404; a bad toNumber a 400', async () => {
      const own = (await fx.a.api.post('/v1/contacts', { name: 'Own', phoneNumber: '+14155550602' })).body;
      const theirs = (await fx.b.api.post('/v1/contacts', { name: 'Theirs', phoneNumber: '+14155550603' })).body;
      const both = await send('sendText', { channelId: channel.id, toNumber: '14155550602', contactId: own.id, text: 'x' });
      assert.equal(both.status, 400);
      assert.deepEqual(both.body.error.validationErrors, [
        { message: 'Give either toNumber or contactId, not both.', members: ['contactId'] },
      ]);
      const neither = await send('sendText', { channelId: channel.id, text: 'x' });
      assert.equal(neither.status, 400);
      assert.deepEqual(neither.body.error.validationErrors[0], { message: 'toNumber or contactId is required', members: ['toNumber'] });
      const foreign = await send('sendTemplate', {
        channelId: channel.id,
        templateName: 'hello',
        language: 'en',
        contactId: theirs.id,
        parameters: [{ type: 'Body', values: [{ type: 'text', text: 'x' }] }],
      });
      assert.equal(foreign.status, 404);
      assert.equal(foreign.body.error.code, 'Contacts:ContactNotFound');
      const malformedContact = await send('sendText', { channelId: channel.id, contactId: 'not-a-uuid', text: 'x' });
      assert.equal(malformedContact.status, 400);
      for (const toNumber of ['abc', 'us.123', '+1']) {
        const bad = await send('sendText', { channelId: channel.id, toNumber, text: 'x' });
        assert.equal(bad.status, 400, toNumber);
      }
      // A contactId send still needs the service window.
      const closed = await send('sendText', { channelId: channel.id, contactId: own.id, text: 'x' });
      assert.equal(closed.status, 400);
      assert.equal(closed.body.error.code, 'WhatsApp:ServiceWindowExpired');
    });

    it('calls a BSUID’s contact at its number, and refuses one without a number with a 400 saying why', async () => {
      const voice = await createChannel(fx.t, fx.a.workspaceId, { phoneNumber: '+14155550992' });
      const withNumber = (await fx.a.api.post('/v1/contacts', { name: 'Callable', phoneNumber: '+14155550604', whatsAppUserId: 'US.9020' }))
        .body;
      assert.ok(withNumber.id);
      const withoutNumber = (await fx.a.api.post('/v1/contacts', { name: 'Chat only', whatsAppUserId: 'US.9021' })).body;
      assert.ok(withoutNumber.id);
      const call = (destinationNumber: string) =>
        fx.a.api.post('/v1/outbound-ivr', {
          channelId: voice.id,
          destinationNumber,
          ttsText: 'Press 1',
          options: [{ digit: '1', description: 'Yes' }],
          webhookUrl: 'https://crm.example.com/ivr',
        });
      const placed = await call('US.9020');
      assert.equal(placed.status, 200, placed.text);
      assert.equal(placed.body.destinationNumber, '+14155550604');
      const refused = await call('US.9021');
      assert.equal(refused.status, 400);
      assert.equal(refused.body.error.code, 'OutboundIvr:PhoneNumberRequired');
      assert.equal(
        refused.body.message,
        "Calls need a phone number: contact 'Chat only' (WhatsApp user id 'US.9021') has none; WhatsApp did not share it.",
      );
      assert.deepEqual(refused.body.error.validationErrors[0].members, ['destinationNumber']);
      const unknown = await call('US.9022');
      assert.equal(unknown.status, 400);
      assert.match(unknown.body.message, /no contact has WhatsApp user id 'US.9022'/);
    });
  },
);
