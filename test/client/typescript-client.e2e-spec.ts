import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import {
  ApiError,
  ClientCredentialsTokens,
  createMessagingClient,
  unwrap,
  verifyWebhook,
  WebhookVerificationError,
  type MessagingClient,
  type VerifiedWebhook,
} from '@messaging-service/client';
import { describeWithApp } from '../support/describe-with-app.js';
import { createChannel, waitFor } from '../support/fixtures.js';
import { ADMIN_KEY } from '../support/test-app.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const UNKNOWN_ID = '0190a1b2-0000-7000-8000-000000000000';

/** The generated TypeScript client (clients/typescript) against the live service: no casts, compiled strict. */
describeWithApp('The TypeScript client against the running service', { env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } }, (fx) => {
  let api: MessagingClient;
  let admin: MessagingClient;
  let receiver: WebhookReceiver;
  let channelId: string;

  before(async () => {
    receiver = await WebhookReceiver.start();
    const channel: { id: string } = await createChannel(fx.t, fx.a.workspaceId, { webhookUrl: receiver.url('/hooks') });
    channelId = channel.id;
    api = createMessagingClient({ baseUrl: fx.t.baseUrl, credentials: { clientId: fx.a.clientId, clientSecret: fx.a.clientSecret } });
    admin = createMessagingClient({ baseUrl: fx.t.baseUrl, accessToken: ADMIN_KEY });
  });
  after(() => receiver?.close());

  it('gets a token with client credentials and keeps it until it nears expiry', async () => {
    const tokens = new ClientCredentialsTokens(fx.t.baseUrl, { clientId: fx.a.clientId, clientSecret: fx.a.clientSecret });
    const first = await tokens.token();
    assert.match(first, /^[\w-]+\.[\w-]+\.[\w-]+$/);
    assert.equal(await tokens.token(), first);
    const wrong = new ClientCredentialsTokens(fx.t.baseUrl, { clientId: fx.a.clientId, clientSecret: 'not-the-secret' });
    await assert.rejects(wrong.token(), (err: unknown) => err instanceof ApiError && err.status === 401 && err.code === 'invalid_client');
  });

  it("answers a refused Service Login as the call's error, in the envelope, and unwrap throws it", async () => {
    const wrong = createMessagingClient({
      baseUrl: fx.t.baseUrl,
      credentials: { clientId: fx.a.clientId, clientSecret: 'not-the-secret' },
    });
    const res = await wrong.GET('/v1/channels/service-account');
    assert.equal(res.data, undefined);
    assert.equal(res.response.status, 401);
    assert.equal(res.response.headers.get('www-authenticate'), 'Basic realm="token"');
    assert.deepEqual(res.error, {
      statusCode: 401,
      message: 'Client authentication failed.',
      error: { code: 'invalid_client', message: 'Client authentication failed.', details: null, validationErrors: null },
    });
    await assert.rejects(
      async () => unwrap(await wrong.POST('/v1/contacts', { body: { name: 'Nobody', phoneNumber: '+966502000999' } })),
      (err: unknown) => err instanceof ApiError && err.status === 401 && err.code === 'invalid_client',
    );
  });

  it('lists the channels', async () => {
    const page = unwrap(await api.GET('/v1/channels/service-account', { params: { query: { maxResultCount: 10 } } }));
    assert.ok(page.items.some((channel) => channel.id === channelId));
    assert.equal(page.items.find((channel) => channel.id === channelId)?.webhookUrl, receiver.url('/hooks'));
  });

  it('creates a contact, sets a Select property, and finds it by search; errors are typed', async () => {
    const contact = unwrap(await api.POST('/v1/contacts', { body: { name: 'Sara Al-Harbi', phoneNumber: '+966 50 123 4567' } }));
    assert.equal(contact.phoneNumber, '+966501234567');

    const duplicate = await api.POST('/v1/contacts', { body: { name: 'Again', phoneNumber: '966501234567' } });
    assert.equal(duplicate.response.status, 409);
    assert.match(duplicate.error?.error.code ?? '', /^Contacts:/);

    const status = unwrap(
      await api.POST('/v1/contact-property-definitions', { body: { name: 'Status', type: 'Select', selectOptions: ['Lead', 'Customer'] } }),
    );
    assert.equal(status.type, 3);
    const path = { contactId: contact.id, propertyId: status.id };
    const updated = unwrap(
      await api.PUT('/v1/contacts/{contactId}/properties/{propertyId}', { params: { path }, body: { value: 'Lead' } }),
    );
    assert.equal(updated.customProperties.find((p) => p.propertyDefinitionId === status.id)?.selectValue, 'Lead');

    await assert.rejects(
      async () =>
        unwrap(await api.PUT('/v1/contacts/{contactId}/properties/{propertyId}', { params: { path }, body: { value: 'Partner' } })),
      (err: unknown) =>
        err instanceof ApiError && err.status === 400 && err.message.includes("Invalid select option 'Partner' for property 'Status'."),
    );

    const found = unwrap(
      await api.POST('/v1/contacts/search', {
        body: { customPropertyFilters: [{ propertyDefinitionId: status.id, operator: 1, value: 'Lead' }] },
      }),
    );
    assert.deepEqual(
      found.items.map((c) => c.id),
      [contact.id],
    );
  });

  it('answers ChannelNotFoundError for an unknown channel, typed', async () => {
    const res = await api.POST('/v1/whatsapp/service-account/sendText', {
      body: { channelId: UNKNOWN_ID, toNumber: '966501234567', text: 'Hello' },
    });
    assert.equal(res.response.status, 404);
    assert.equal(res.error?.error.code, 'Channels:ChannelNotFound');
  });

  it('sends on the sandbox after an inbound message, and the signed webhooks report it delivered and read', async () => {
    const from = '966509876543';
    const inbound = await admin.POST('/admin/v1/channels/{channelId}/sandbox/inbound', {
      params: { path: { channelId } },
      body: { fromNumber: from, type: 'text', text: 'Hi, is my order on its way?' },
    });
    assert.equal(inbound.response.status, 202);
    // The inbound message opens the 24 h service window; wait for its webhook.
    await waitFor(async () => verifiedEvents().find((e) => e.payload.direction === 'Inbound'), 15_000, 'the inbound webhook');

    const sent = unwrap(
      await api.POST('/v1/whatsapp/service-account/sendText', { body: { channelId, toNumber: from, text: 'Yes, it arrives today.' } }),
    );
    assert.equal(sent.status, 'accepted');
    const read = await waitFor(
      async () => verifiedEvents().find((e) => e.payload.direction === 'Outbound' && e.payload.status === 'Read'),
      20_000,
      'the Read status webhook',
    );
    assert.equal(read.eventType, 'whatsapp.message');
    assert.equal(read.envelope, undefined, "a channel's URL receives the data alone");
    assert.deepEqual(
      verifiedEvents()
        .filter((e) => e.payload.direction === 'Outbound')
        .map((e) => e.payload.status),
      ['Sent', 'Delivered', 'Read'],
    );

    // The conversation's timeline shows the same message as Read.
    const conversations = unwrap(
      await api.GET('/v2/conversations/service-account/channels/{channelId}', { params: { path: { channelId } } }),
    );
    const conversationId = conversations.items[0]?.id ?? '';
    const timeline = unwrap(
      await api.GET('/v2/conversations/service-account/{conversationId}/timeline', { params: { path: { conversationId } } }),
    );
    const event = timeline.items.find((e) => e.eventId === sent.conversationEventId);
    assert.equal(event?.status, 'Read');
    assert.equal(event?.sourceId, read.payload.messageId);

    const received = receiver.received[0];
    assert.throws(
      () => verifyWebhook('whsec_' + Buffer.from('another secret, 32 bytes long!!!').toString('base64'), received.body, received.headers),
      WebhookVerificationError,
    );
  });

  /** The channel's WhatsApp events, narrowed by their type: their payload is the WhatsApp Message Webhook. */
  function verifiedEvents() {
    return receiver.received
      .filter((r) => r.path === '/hooks')
      .map((r): VerifiedWebhook => verifyWebhook(fx.a.webhookSecret, r.body, r.headers))
      .flatMap((event) => (event.eventType === 'whatsapp.message' ? [event] : []));
  }
});
