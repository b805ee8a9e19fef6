import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeWithApp } from '../support/describe-with-app.js';
import * as cloud from '../support/cloud-notifications.js';
import { FakeCloudApi } from '../support/fake-cloud-api.js';
import { waitFor } from '../support/fixtures.js';
import { verifySignature, WebhookReceiver } from '../support/webhook-receiver.js';
import { inTransaction } from '../../src/database/transactions.js';

const APP_SECRET = 'identity-app-secret';

type Payload = Record<string, any>;

describeWithApp(
  'Who sent it: contacts by number and business-scoped user id, merges and identity updates',
  {
    peers: { receiver: () => WebhookReceiver.start() },
    env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', RATE_LIMIT_REQUESTS_PER_MINUTE: '100000' },
  },
  (fx) => {
    let channel: { id: string };

    const notify = async (notification: unknown) =>
      assert.equal(await FakeCloudApi.notify(`${fx.t.baseUrl}/v1/whatsapp/webhooks/${channel.id}`, APP_SECRET, notification), 200);
    const webhookOf = (messageId: string) =>
      fx.receiver.signedPayload<Payload>('/wa', fx.a.webhookSecret, (p) => p.messageId === messageId, `the webhook of ${messageId}`);
    const contact = async (id: string) => (await fx.a.api.get(`/v1/contacts/${id}`)).body as Payload;
    const history = async (id: string) => (await fx.a.api.get(`/v1/contacts/${id}/history?MaxResultCount=100`)).body.items as Payload[];
    const conversationsOf = async (contactId: string) =>
      (await fx.a.api.get(`/v2/conversations/service-account/channels/${channel.id}?ContactIds=${contactId}`)).body.items as Payload[];
    const timeline = async (conversationId: string) =>
      (await fx.a.api.get(`/v2/conversations/service-account/${conversationId}/timeline?MaxResultCount=100`)).body.items as Payload[];
    /** What A's webhook endpoint for contact.merged received, signatures checked with its own secret. */
    let endpointSecret: string;
    const mergedEvents = () => fx.receiver.at('/endpoint').map((r) => verifySignature(r, endpointSecret) as Payload);

    before(async () => {
      const created = await fx.t.admin.post(`/admin/v1/workspaces/${fx.a.workspaceId}/channels`, {
        name: 'Cloud WA',
        type: 2,
        phoneNumber: '+14155550999',
        webhookUrl: fx.receiver.url('/wa'),
        whatsApp: { provider: 'cloud-api', phoneNumberId: '1', wabaId: '2', accessToken: 'tok', appSecret: APP_SECRET, verifyToken: 'v' },
      });
      assert.equal(created.status, 200, created.text);
      channel = created.body;
      const endpoint = await fx.a.api.post('/v1/webhook-endpoints', { url: fx.receiver.url('/endpoint'), eventTypes: ['contact.merged'] });
      assert.equal(endpoint.status, 200, endpoint.text);
      endpointSecret = endpoint.body.secret;
    });

    it('records a message from a user who hides their number, as a contact known by BSUID alone, named by the profile name', async () => {
      const sender = { userId: 'US.13491208655302741918', username: 'sheena.n', name: 'Sheena Nelson' };
      await notify(cloud.inbound(sender, 'wamid.bsuid-1', cloud.content.text('Hi, I saw your ad')));
      const first = await webhookOf('wamid.bsuid-1');
      assert.deepEqual(
        [first.whatsAppUserId, first.whatsAppUsername, first.profileName],
        ['US.13491208655302741918', 'sheena.n', 'Sheena Nelson'],
      );
      const created = await contact(first.contactId);
      assert.equal(created.phoneNumber, null);
      assert.equal(created.whatsAppUserId, 'US.13491208655302741918');
      assert.equal(created.whatsAppUsername, 'sheena.n');
      assert.equal(created.whatsAppParentUserId, null);
      assert.equal(created.name, 'Sheena Nelson');
      assert.ok((await history(created.id)).some((e) => e.propertyName === 'WhatsAppUserId' && e.newValue === 'US.13491208655302741918'));

      // The next message finds the same contact and conversation; a changed username follows.
      await notify(cloud.inbound({ ...sender, username: 'sheena' }, 'wamid.bsuid-2', cloud.content.text('Still there?')));
      const second = await webhookOf('wamid.bsuid-2');
      assert.equal(second.contactId, first.contactId);
      assert.equal(second.conversationId, first.conversationId);
      assert.equal((await contact(first.contactId)).whatsAppUsername, 'sheena');
      // It shows in the conversation list, with no phone number.
      const [conversation] = await conversationsOf(first.contactId);
      assert.equal(conversation.phoneNumber, null);
      assert.equal(conversation.contactName, 'Sheena Nelson');
    });

    it('merges the number-only contact into the BSUID one when a message names both: timeline, conversations, properties and history move, one history entry, one contact.merged event', async () => {
      // A contact known by number, with a property, a note and a conversation with messages.
      const tier = (
        await fx.a.api.post('/v1/contact-property-definitions', { name: 'Tier', type: 'Select', selectOptions: ['Gold', 'Silver'] })
      ).body;
      const city = (await fx.a.api.post('/v1/contact-property-definitions', { name: 'City', type: 'Text' })).body;
      const byPhone = (
        await fx.a.api.post('/v1/contacts', { name: 'Omar (CRM)', phoneNumber: '+14155550701', email: 'omar@example.com', note: 'VIP' })
      ).body;
      assert.equal((await fx.a.api.put(`/v1/contacts/${byPhone.id}/properties/${tier.id}`, { value: 'Gold' })).status, 200);
      assert.equal((await fx.a.api.put(`/v1/contacts/${byPhone.id}/properties/${city.id}`, { value: 'Jeddah' })).status, 200);
      await notify(cloud.inbound({ phone: '14155550701' }, 'wamid.merge-phone-1', cloud.content.text('Order 17?')));
      const phoneMessage = await webhookOf('wamid.merge-phone-1');
      assert.equal(phoneMessage.contactId, byPhone.id);

      // The same person, before Meta told us their number: a contact known by BSUID, with a property of its own.
      await notify(cloud.inbound({ userId: 'SA.99887766', name: 'Omar' }, 'wamid.merge-bsuid-1', cloud.content.text('Hello')));
      const bsuidMessage = await webhookOf('wamid.merge-bsuid-1');
      const byUserId = bsuidMessage.contactId as string;
      assert.notEqual(byUserId, byPhone.id);
      assert.equal((await fx.a.api.put(`/v1/contacts/${byUserId}/properties/${city.id}`, { value: 'Riyadh' })).status, 200);

      // A message naming both.
      await notify(
        cloud.inbound({ phone: '14155550701', userId: 'SA.99887766', name: 'Omar' }, 'wamid.merge-both-1', cloud.content.text('Both')),
      );
      const both = await webhookOf('wamid.merge-both-1');
      assert.equal(both.contactId, byUserId, 'the BSUID contact stays');

      assert.equal((await fx.a.api.get(`/v1/contacts/${byPhone.id}`)).status, 404, 'the number-only contact is gone');
      const survivor = await contact(byUserId);
      assert.equal(survivor.phoneNumber, '+14155550701');
      assert.equal(survivor.whatsAppUserId, 'SA.99887766');
      assert.equal(survivor.email, 'omar@example.com', 'empty fields filled from the merged contact');
      assert.deepEqual(
        survivor.notes.map((n: Payload) => n.text),
        ['VIP'],
      );
      const values = Object.fromEntries(survivor.customProperties.map((p: Payload) => [p.propertyName, p.textValue ?? p.selectValue]));
      assert.deepEqual(values, { Tier: 'Gold', City: 'Riyadh' }, 'the survivor keeps its own value; the others move');

      const conversations = await conversationsOf(byUserId);
      const sourceIds = (await Promise.all(conversations.map((c) => timeline(c.id)))).flat().map((e) => e.sourceId);
      assert.deepEqual(sourceIds.sort(), ['wamid.merge-both-1', 'wamid.merge-bsuid-1', 'wamid.merge-phone-1']);
      assert.ok(conversations.filter((c) => c.status === 1).length === 1, 'one open conversation per channel');
      assert.ok((await timeline(phoneMessage.conversationId)).every((e) => e.contactId === byUserId));

      const entries = await history(byUserId);
      const merges = entries.filter((e) => e.propertyName === 'MergedContact');
      assert.equal(merges.length, 1);
      assert.deepEqual([merges[0].oldValue, merges[0].newValue], [byPhone.id, byUserId]);
      assert.ok(
        entries.some((e) => e.propertyName === 'Tier' && e.newValue === 'Gold'),
        "the merged contact's history moved",
      );
      assert.equal(
        entries.filter((e) => e.propertyName === 'PhoneNumber' && e.newValue === '+14155550701').length,
        1,
        'no second entry for the number',
      );

      const [event] = await waitFor(async () => (mergedEvents().length > 0 ? mergedEvents() : undefined), 15_000, 'contact.merged');
      assert.deepEqual(
        [event.type, event.workspaceId, event.data.contactId, event.data.mergedContactId],
        ['contact.merged', fx.a.workspaceId, byUserId, byPhone.id],
      );
      assert.equal(event.data.moved.properties, 1);
      assert.equal(event.data.reason.providerMessageId, 'wamid.merge-both-1');

      // Redelivered, the message merges nothing again.
      await notify(
        cloud.inbound({ phone: '14155550701', userId: 'SA.99887766', name: 'Omar' }, 'wamid.merge-both-1', cloud.content.text('Both')),
      );
      await new Promise((resolve) => setTimeout(resolve, 800));
      assert.equal(mergedEvents().length, 1, 'one contact.merged event');
    });

    it('moves the ids on user_id_update and on user_changed_number; statuses teach a contact its BSUID', async () => {
      await notify(cloud.inbound({ phone: '14155550702', userId: 'US.111', name: 'Lee' }, 'wamid.upd-1', cloud.content.text('hi')));
      const lee = (await webhookOf('wamid.upd-1')).contactId as string;
      await notify(cloud.userIdUpdate('US.111', 'US.222', '14155550702'));
      await waitFor(async () => (await contact(lee)).whatsAppUserId === 'US.222', 10_000, 'the new BSUID');
      assert.ok(
        (await history(lee)).some((e) => e.propertyName === 'WhatsAppUserId' && e.oldValue === 'US.111' && e.newValue === 'US.222'),
      );

      await notify(cloud.userChangedNumber('14155550702', '14155550703', 'US.333', 'wamid.sys-1', 'US.222'));
      await waitFor(async () => (await contact(lee)).phoneNumber === '+14155550703', 10_000, 'the new number');
      const changed = await contact(lee);
      assert.equal(changed.whatsAppUserId, 'US.333');
      const system = await webhookOf('wamid.sys-1');
      assert.equal(system.messageType, 'Unsupported');
      assert.equal(system.contactId, lee);
      assert.ok((await history(lee)).some((e) => e.propertyName === 'PhoneNumber' && e.newValue === '+14155550703'));
      // A later message from the new number and BSUID is the same contact.
      await notify(cloud.inbound({ phone: '14155550703', userId: 'US.333' }, 'wamid.upd-2', cloud.content.text('new phone')));
      assert.equal((await webhookOf('wamid.upd-2')).contactId, lee);

      // A message sent to a number whose status names the BSUID: the contact learns it.
      const plain = (await fx.a.api.post('/v1/contacts', { name: 'Kai', phoneNumber: '+14155550704' })).body;
      const { StatusService } = await import('../../src/whatsapp/outbound/status.service.js');
      const { TimelineService } = await import('../../src/conversations/timeline.service.js');
      const { ConversationsService } = await import('../../src/conversations/conversations.service.js');
      await inTransaction(async () => {
        const ref = await fx.t.app.get(ConversationsService).findOrOpenRef(fx.a.workspaceId, channel.id, plain.id);
        await fx.t.app
          .get(TimelineService)
          .record(ref, { sourceType: 2, direction: 2, status: 'Sent', sourceId: 'wamid.out-kai', body: 'x' });
      });
      await fx.t.app.get(StatusService).apply(fx.a.workspaceId, channel.id, {
        providerMessageId: 'wamid.out-kai',
        status: 'Delivered',
        at: new Date().toISOString(),
        errorCode: null,
        errorReason: null,
        recipientUserId: 'US.444',
      });
      assert.equal((await contact(plain.id)).whatsAppUserId, 'US.444');
    });

    it('creates, finds and filters contacts by WhatsApp user id; refuses duplicates, bad ids and contacts without any id', async () => {
      const created = await fx.a.api.post('/v1/contacts', { name: 'Username only', whatsAppUserId: 'BR.1502576394655843' });
      assert.equal(created.status, 200, created.text);
      assert.equal(created.body.phoneNumber, null);
      assert.equal(created.body.whatsAppUserId, 'BR.1502576394655843');
      const duplicate = await fx.a.api.post('/v1/contacts', { name: 'Again', whatsAppUserId: 'BR.1502576394655843' });
      assert.equal(duplicate.status, 409);
      assert.equal(duplicate.body.error.code, 'Contacts:DuplicateWhatsAppUserId');
      const neither = await fx.a.api.post('/v1/contacts', { name: 'Nobody' });
      assert.equal(neither.status, 400);
      assert.deepEqual(neither.body.error.validationErrors[0].members, ['phoneNumber', 'whatsAppUserId']);
      const malformed = await fx.a.api.post('/v1/contacts', { name: 'Bad', whatsAppUserId: '12345' });
      assert.equal(malformed.status, 400);
      assert.deepEqual(malformed.body.error.validationErrors[0].members, ['whatsAppUserId']);
      // The other workspace may hold the same BSUID (scoped per business portfolio, unique per workspace).
      assert.equal((await fx.b.api.post('/v1/contacts', { name: 'B', whatsAppUserId: 'BR.1502576394655843' })).status, 200);

      const listed = await fx.a.api.get('/v1/contacts?WhatsAppUserId=BR.1502576394655843');
      assert.deepEqual(
        listed.body.items.map((c: Payload) => c.id),
        [created.body.id],
      );
      const searched = await fx.a.api.post('/v1/contacts/search', { whatsAppUserId: 'BR.1502576394655843' });
      assert.deepEqual(
        searched.body.items.map((c: Payload) => c.id),
        [created.body.id],
      );
      assert.equal(
        (await fx.a.api.get('/v1/contacts?Filter=sheena')).body.items[0]?.whatsAppUsername,
        'sheena',
        'the free-text filter reads usernames',
      );
      const updated = await fx.a.api.put(`/v1/contacts/${created.body.id}`, { phoneNumber: '+14155550705' });
      assert.equal(updated.status, 200);
      assert.deepEqual([updated.body.phoneNumber, updated.body.whatsAppUserId], ['+14155550705', 'BR.1502576394655843']);
    });
  },
);
