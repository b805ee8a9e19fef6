import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { createCloudChannel } from '../support/cloud-channel.js';
import * as cloud from '../support/cloud-notifications.js';
import { FakeCloudApi, TEMPLATE_FIELDS } from '../support/fake-cloud-api.js';
import { describeWithApp } from '../support/describe-with-app.js';
import { waitFor } from '../support/fixtures.js';
import { verifySignature, WebhookReceiver } from '../support/webhook-receiver.js';

const TOKEN = 'EAAG-2026-token';
const APP_SECRET = '2026-app-secret';
const BUSINESS_PHONE = '15550783881';

type Payload = Record<string, any>;

/**
 * WhatsApp as Meta sends it in 2026 (API.md §14): every payload shaped after Meta's webhook
 * reference, signed and posted to the channel's webhook edge, processed by the worker.
 */
describeWithApp(
  'WhatsApp as it runs in 2026: ids that round-trip, ad attribution, edits and deletions, Business-app echoes, identity order',
  {
    peers: {
      fake: () => FakeCloudApi.start({ acceptedTokens: [TOKEN] }),
      receiver: () => WebhookReceiver.start(),
    },
    env: ({ fake }) => ({ WHATSAPP_GRAPH_URL: fake.url, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', RATE_LIMIT_REQUESTS_PER_MINUTE: '100000' }),
    workspaces: 2,
  },
  (fx) => {
    let channel: { id: string };

    const notify = async (notification: unknown) => {
      const status = await FakeCloudApi.notify(`${fx.t.baseUrl}/v1/whatsapp/webhooks/${channel.id}`, APP_SECRET, notification);
      assert.equal(status, 200);
    };
    const webhooks = (): Payload[] => fx.receiver.at('/wa').map((r) => verifySignature(r, fx.a.webhookSecret) as Payload);
    const webhooksOf = (providerMessageId: string, action = 'Created') =>
      webhooks().filter((p) => p.providerMessageId === providerMessageId && p.action === action);
    const webhookOf = (providerMessageId: string, action = 'Created') =>
      waitFor(async () => webhooksOf(providerMessageId, action)[0], 15_000, `the ${action} webhook of ${providerMessageId}`);
    const conversationOf = async (phone: string) =>
      (await fx.a.api.post('/v2/conversations/service-account/create', { channelId: channel.id, phoneNumber: phone })).body.conversation;
    const timeline = async (conversationId: string): Promise<Payload[]> =>
      (await fx.a.api.get(`/v2/conversations/service-account/${conversationId}/timeline?MaxResultCount=1000`)).body.items;
    const findEvent = async (conversationId: string, providerMessageId: string) =>
      (await timeline(conversationId)).find((e) => e.sourceId === providerMessageId);
    const eventOf = async (conversationId: string, providerMessageId: string): Promise<Payload> => {
      const event = await findEvent(conversationId, providerMessageId);
      assert.ok(event, `the event of ${providerMessageId}`);
      return event;
    };

    before(async () => {
      channel = await createCloudChannel(fx.t, fx.a.workspaceId, null, {
        phoneNumberId: '106540352242922',
        accessToken: TOKEN,
        appSecret: APP_SECRET,
        phoneNumber: '+14155550777',
        webhookUrl: fx.receiver.url('/wa'),
      });
    });

    it('gives every webhook both ids, and takes either where a message is named: Mark As Read, Send Reaction, a reply', async () => {
      const sender = { phone: '14155550801', name: 'Mia' };
      await notify(cloud.inbound(sender, 'wamid.ids-1', cloud.content.text('Where is my parcel?')));
      const created = await webhookOf('wamid.ids-1');
      assert.equal(created.messageId, 'wamid.ids-1');
      assert.match(created.eventId, /^[0-9a-f-]{36}$/);
      assert.equal(created.action, 'Created');

      const read = await fx.a.api.post('/v1/whatsapp/service-account/markAsRead', { channelId: channel.id, messageId: 'wamid.ids-1' });
      assert.equal(read.status < 300, true, read.text);
      await waitFor(async () => fx.fake.reads.find((r) => (r.body as Payload).message_id === 'wamid.ids-1'), 10_000, 'the read');

      const reaction = await fx.a.api.post('/v1/whatsapp/service-account/sendReaction', {
        channelId: channel.id,
        toNumber: sender.phone,
        messageId: 'wamid.ids-1',
        emoji: '👍',
      });
      assert.equal(reaction.status, 200, reaction.text);
      const reply = await fx.a.api.post('/v1/whatsapp/service-account/sendText', {
        channelId: channel.id,
        toNumber: sender.phone,
        text: 'On its way',
        replyToMessageId: created.eventId,
      });
      assert.equal(reply.status, 200, reply.text);
      await waitFor(
        async () => fx.fake.sendsTo(sender.phone).filter((r) => (r.body as Payload).type !== undefined).length >= 2,
        10_000,
        'both sends',
      );
      const bodies = fx.fake.sendsTo(sender.phone).map((r) => r.body as Payload);
      assert.deepEqual(bodies.find((b) => b.type === 'reaction')?.reaction, { message_id: 'wamid.ids-1', emoji: '👍' });
      assert.deepEqual(bodies.find((b) => b.type === 'text' && b.text.body === 'On its way')?.context, { message_id: 'wamid.ids-1' });

      // Another workspace's message, by its wamid: a 404, as by its event id.
      const bChannel = await createCloudChannel(fx.t, fx.b.workspaceId, null, { phoneNumberId: '106540352242999', accessToken: TOKEN });
      for (const messageId of ['wamid.ids-1', created.eventId]) {
        const foreign = await fx.b.api.post('/v1/whatsapp/service-account/markAsRead', { channelId: bChannel.id, messageId });
        assert.equal(foreign.status, 404, foreign.text);
        assert.equal(foreign.body.error.code, 'WhatsApp:MessageNotFound');
      }
      // A wamid of no message of the workspace is a 404, a message of another chat a 400.
      const unknown = await fx.a.api.post('/v1/whatsapp/service-account/markAsRead', { channelId: channel.id, messageId: 'wamid.nobody' });
      assert.equal(unknown.status, 404);
      const otherChat = await fx.a.api.post('/v1/whatsapp/service-account/sendText', {
        channelId: channel.id,
        toNumber: '14155550899',
        text: 'x',
        replyToMessageId: 'wamid.ids-1',
      });
      assert.equal(otherChat.status, 400, otherChat.text);
      assert.equal(otherChat.body.error.code, 'WhatsApp:InvalidMessageId');
      assert.deepEqual(otherChat.body.error.validationErrors[0].members, ['replyToMessageId']);

      // The customer's reaction and reply name our message by Meta's id: the webhook carries both ids.
      await notify(cloud.inbound(sender, 'wamid.ids-2', cloud.content.reaction('wamid.ids-1', '❤️')));
      const reacted = await webhookOf('wamid.ids-2');
      assert.equal(reacted.reactedMessageId, created.eventId);
      assert.equal(reacted.reactedProviderMessageId, 'wamid.ids-1');
      await notify(
        cloud.inbound(sender, 'wamid.ids-3', cloud.content.text('Thanks'), { context: { from: BUSINESS_PHONE, id: 'wamid.never-stored' } }),
      );
      const replied = await webhookOf('wamid.ids-3');
      assert.deepEqual(replied.replyTo, { repliedToEventId: null, repliedToBody: null, repliedToProviderMessageId: 'wamid.never-stored' });
    });

    it('keeps the ad referral, the product asked about and the forwarding flags; the conversation keeps its first referral and is filtered by it', async () => {
      const sender = { phone: '14155550802', name: 'Noor' };
      await notify(
        cloud.inbound(sender, 'wamid.ad-1', cloud.content.text('Can I get more info about this?'), {
          referral: cloud.adReferral('120226305854810726'),
        }),
      );
      const first = await webhookOf('wamid.ad-1');
      assert.deepEqual(first.referral, {
        sourceUrl: 'https://fb.me/3cr4Wqqkv',
        sourceId: '120226305854810726',
        sourceType: 'ad',
        headline: 'Chat with us',
        body: 'Summer Succulents are here!',
        mediaType: 'image',
        imageUrl: 'https://scontent.xx.fbcdn.net/v/t45.1/succulents.jpg',
        videoUrl: null,
        thumbnailUrl: null,
        ctwaClid: 'Aff-120226305854810726-n8ZTODiE79d22KtAwQKj9e_mIEOOj27vDVwFjN80dp4',
        welcomeMessage: 'Hi there! Let us know how we can help!',
      });
      await notify(
        cloud.inbound(sender, 'wamid.ad-2', cloud.content.text('Another ad'), { referral: cloud.adReferral('999', 'Later ad') }),
      );
      await notify(
        cloud.inbound(
          sender,
          'wamid.ad-3',
          cloud.content.text('Is this still available?'),
          cloud.productInquiry(BUSINESS_PHONE, 'wamid.catalog'),
        ),
      );
      await notify(cloud.inbound(sender, 'wamid.ad-4', cloud.content.text('look'), cloud.forwardedContext(true)));
      const product = await webhookOf('wamid.ad-3');
      assert.deepEqual(product.referredProduct, { catalogId: '194836987003835', productRetailerId: 'di9ozbzfi4' });
      const forwarded = await webhookOf('wamid.ad-4');
      assert.equal(forwarded.frequentlyForwarded, true);
      assert.equal(forwarded.forwarded, false);
      assert.equal((await webhookOf('wamid.ad-2')).referral.sourceId, '999');

      const conversation = await conversationOf(sender.phone);
      assert.equal(conversation.referral.sourceId, '120226305854810726', 'the first referral stays');
      const event = await eventOf(conversation.id, 'wamid.ad-1');
      assert.equal(event.referral.ctwaClid, first.referral.ctwaClid);
      assert.equal((await eventOf(conversation.id, 'wamid.ad-4')).frequentlyForwarded, true);

      await notify(cloud.inbound({ phone: '14155550803' }, 'wamid.ad-5', cloud.content.text('no ad')));
      await webhookOf('wamid.ad-5');
      const list = async (query: string) =>
        ((await fx.a.api.get(`/v2/conversations/service-account/channels/${channel.id}?${query}`)).body.items as Payload[]).map(
          (c) => c.id,
        );
      assert.deepEqual(await list('HasReferral=true'), [conversation.id]);
      assert.ok(!(await list('HasReferral=false')).includes(conversation.id));
      assert.deepEqual(await list('ReferralSourceId=120226305854810726'), [conversation.id]);
      assert.deepEqual(await list('ReferralSourceId=999'), []);
    });

    it('applies a customer’s edit to the original (history kept, once on redelivery) and a deletion (body and file gone), each with its webhook', async () => {
      const sender = { phone: '14155550804', name: 'Omar' };
      await notify(cloud.inbound(sender, 'wamid.ed-1', cloud.content.text('See you at 5')));
      const original = await webhookOf('wamid.ed-1');
      const editNotification = cloud.inbound(sender, 'wamid.ed-edit', cloud.edit('wamid.ed-1', cloud.content.text('See you at 6')));
      await notify(editNotification);
      const edited = await webhookOf('wamid.ed-1', 'Edited');
      assert.equal(edited.eventId, original.eventId);
      assert.equal(edited.body, 'See you at 6');
      assert.equal(edited.editHistory.length, 1);
      assert.equal(edited.editHistory[0].body, 'See you at 5');
      await notify(editNotification); // Meta redelivers
      await notify(cloud.inbound(sender, 'wamid.ed-marker', cloud.content.text('after the redelivery')));
      await webhookOf('wamid.ed-marker');
      assert.equal(webhooksOf('wamid.ed-1', 'Edited').length, 1, 'a redelivered edit changes nothing');
      const conversation = await conversationOf(sender.phone);
      const event = await eventOf(conversation.id, 'wamid.ed-1');
      assert.equal(event.body, 'See you at 6');
      assert.deepEqual(event.editHistory, [{ body: 'See you at 5', editedAt: edited.editHistory[0].editedAt }]);
      assert.equal(await findEvent(conversation.id, 'wamid.ed-edit'), undefined, 'an edit is no message of its own');

      // A deleted photo: its caption and stored file go, its place stays.
      const photo = Buffer.from('fake-jpeg-bytes-of-a-photo');
      const { createHash } = await import('node:crypto');
      fx.fake.media.set('7001', { bytes: photo, mimeType: 'image/jpeg' });
      await notify(
        cloud.inbound(
          sender,
          'wamid.ed-photo',
          cloud.content.image('7001', createHash('sha256').update(photo).digest('hex'), 'My address'),
        ),
      );
      const stored = await webhookOf('wamid.ed-photo');
      assert.ok(stored.mediaUrl, 'the photo was stored');
      const mediaPath = new URL(stored.mediaUrl as string).pathname;
      assert.equal((await fetch(`${fx.t.baseUrl}${mediaPath}`)).status, 200);
      await notify(cloud.inbound(sender, 'wamid.ed-revoke', cloud.revoke('wamid.ed-photo')));
      const revoked = await webhookOf('wamid.ed-photo', 'Revoked');
      assert.equal(revoked.body, null);
      assert.equal(revoked.mediaUrl, null);
      assert.match(revoked.revokedAt, /^\d{4}-\d\d-\d\dT/);
      await waitFor(async () => (await fetch(`${fx.t.baseUrl}${mediaPath}`)).status === 404, 10_000, 'the file deleted');
      const gone = await eventOf(conversation.id, 'wamid.ed-photo');
      assert.equal(gone.body, null);
      assert.equal(gone.revokedAt, revoked.revokedAt);
      assert.deepEqual(gone.attachment, { messageType: 'Image' });

      // An edit of a message never stored is kept as it came.
      await notify(cloud.inbound(sender, 'wamid.ed-orphan', cloud.edit('wamid.before-our-time', cloud.content.text('edited'))));
      const orphan = await webhookOf('wamid.ed-orphan');
      assert.equal(orphan.messageType, 'Unsupported');
      const orphanEvent = await eventOf(conversation.id, 'wamid.ed-orphan');
      assert.equal(orphanEvent.attachment.raw.edit.original_message_id, 'wamid.before-our-time');
    });

    it('records what the business sent from the WhatsApp Business app as outbound (source BusinessApp), never sends it, and applies its edits', async () => {
      const customer = { phone: '14155550805', userId: 'US.50805', name: 'Sara' };
      const sendsBefore = fx.fake.sends.length;
      await notify(cloud.echo(customer, 'wamid.echo-1', cloud.content.text("Here's the info you requested!")));
      const echoed = await webhookOf('wamid.echo-1');
      assert.equal(echoed.direction, 'Outbound');
      assert.equal(echoed.source, 'BusinessApp');
      assert.equal(echoed.status, 'Sent');
      assert.equal(echoed.body, "Here's the info you requested!");
      assert.equal(echoed.whatsAppUserId, 'US.50805');
      const conversation = await conversationOf(customer.phone);
      assert.equal(echoed.conversationId, conversation.id);
      const event = await eventOf(conversation.id, 'wamid.echo-1');
      assert.equal(event.direction, 2);
      assert.equal(event.source, 'BusinessApp');

      await notify(cloud.echo(customer, 'wamid.echo-edit', cloud.edit('wamid.echo-1', cloud.content.text('Here is the updated info'))));
      assert.equal((await webhookOf('wamid.echo-1', 'Edited')).body, 'Here is the updated info');

      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(fx.fake.sends.length, sendsBefore, 'an echo is never sent');
      // The business writing does not open the customer's service window.
      const cold = await fx.a.api.post('/v1/whatsapp/service-account/sendText', {
        channelId: channel.id,
        toNumber: customer.phone,
        text: 'hi',
      });
      assert.equal(cold.status, 400, cold.text);
      assert.equal(cold.body.error.code, 'WhatsApp:ServiceWindowExpired');
    });

    it('applies identity changes before the messages of their notification, and matches contacts[] by id, never by position', async () => {
      const before = { userId: 'US.70001', name: 'Rita' };
      await notify(cloud.inbound(before, 'wamid.rot-1', cloud.content.text('first')));
      const first = await webhookOf('wamid.rot-1');
      // Meta's order: the message from the new BSUID, then the system message announcing the rotation.
      await notify(
        cloud.batch(
          [{ userId: 'US.70002', name: 'Rita' }],
          [
            cloud.messageFrom({ userId: 'US.70002' }, 'wamid.rot-2', cloud.content.text('from my new id')),
            cloud.userChangedUserId('US.70001', 'US.70002', 'wamid.rot-sys'),
          ],
        ),
      );
      const moved = await webhookOf('wamid.rot-2');
      assert.equal(moved.contactId, first.contactId, 'one contact, not two');
      assert.equal((await webhookOf('wamid.rot-sys')).contactId, first.contactId);
      const contact = (await fx.a.api.get(`/v1/contacts/${first.contactId}`)).body;
      assert.equal(contact.whatsAppUserId, 'US.70002');

      // A contacts[] entry that names someone else gives the sender nothing.
      await notify(
        cloud.batch(
          [{ phone: '14155550999', userId: 'US.99999', name: 'Somebody Else' }],
          [cloud.messageFrom({ phone: '14155550806' }, 'wamid.pos-1', cloud.content.text('hi'))],
        ),
      );
      const alone = await webhookOf('wamid.pos-1');
      assert.equal(alone.profileName, null);
      assert.equal(alone.whatsAppUserId, null);
    });

    it('speaks Graph API v25.0, starts a template sync again when Meta refuses a stale cursor, and reads a status without a conversation object', async () => {
      assert.match(fx.fake.url, /\/v25\.0$/);
      fx.fake.templatePages = [
        {
          data: [
            {
              name: 'order_update',
              language: 'en',
              status: 'APPROVED',
              category: 'UTILITY',
              components: [{ type: 'BODY', text: 'Hi {{1}}' }],
            },
          ],
        },
        {
          data: [
            { name: 'promo', language: 'en', status: 'APPROVED', category: 'MARKETING', components: [{ type: 'BODY', text: 'Sale' }] },
          ],
        },
      ];
      fx.fake.staleCursors = 1;
      const synced = await fx.t.admin.post(`/admin/v1/channels/${channel.id}/templates/sync`, {});
      assert.equal(synced.status < 300, true, synced.text);
      assert.equal(synced.body.synced, 2, synced.text);
      const templateRequests = fx.fake.requests.filter((r) => r.path.includes('/message_templates')).map((r) => r.path);
      assert.deepEqual(templateRequests.slice(-4), [
        `/v25.0/555/message_templates?fields=${TEMPLATE_FIELDS}&limit=100`,
        `/v25.0/555/message_templates?fields=${encodeURIComponent(TEMPLATE_FIELDS)}&limit=100&after=1`,
        `/v25.0/555/message_templates?fields=${TEMPLATE_FIELDS}&limit=100`,
        `/v25.0/555/message_templates?fields=${encodeURIComponent(TEMPLATE_FIELDS)}&limit=100&after=1`,
      ]);
      assert.ok(templateRequests.every((path) => path.startsWith('/v25.0/')));

      // Since v24.0 a status carries no conversation object; per-message pricing says what is charged.
      const customer = '14155550807';
      await notify(cloud.inbound({ phone: customer }, 'wamid.v25-in', cloud.content.text('hello')));
      await webhookOf('wamid.v25-in');
      const sent = await fx.a.api.post('/v1/whatsapp/service-account/sendText', {
        channelId: channel.id,
        toNumber: customer,
        text: 'v25 reply',
      });
      assert.equal(sent.status, 200, sent.text);
      const accepted = await waitFor(
        async () => webhooks().find((p) => p.eventId === sent.body.conversationEventId && p.status === 'Sent'),
        10_000,
        'the Sent webhook',
      );
      const pricing = { billable: false, pricing_model: 'PMP', category: 'service', type: 'free_customer_service' };
      await notify(cloud.status(accepted.providerMessageId, 'delivered', { recipientId: customer, pricing, contact: { phone: customer } }));
      const delivered = await waitFor(
        async () => webhooks().find((p) => p.eventId === sent.body.conversationEventId && p.status === 'Delivered'),
        10_000,
        'the Delivered webhook',
      );
      assert.equal(delivered.action, 'StatusChanged');
      assert.equal(delivered.isBillable, false);
      assert.equal(delivered.source, 'Api');
    });
  },
);
