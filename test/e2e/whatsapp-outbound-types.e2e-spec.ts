import { DEMO_NUMBERS } from '../../src/openapi/demo-numbers.js';
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeWithApp } from '../support/describe-with-app.js';
import { isDeepStrictEqual } from 'node:util';
import { createChannel, waitFor } from '../support/fixtures.js';
import { FakeCloudApi, type CloudRequest } from '../support/fake-cloud-api.js';
import type { HttpClient } from '../support/http-client.js';
import { DEMO_TEMPLATES } from '../../src/whatsapp/templates/demo-templates.js';

const TOKEN = 'EAAG-types-token';
const APP_SECRET = 'types-app-secret';
const PHONE_NUMBER_ID = '2098765';
const WA = '/v1/whatsapp/service-account';

interface TimelineEvent {
  eventId: string;
  sourceId: string | null;
  status: string | null;
  direction: number;
  body: string | null;
  attachment: Record<string, unknown> | null;
  location: Record<string, unknown> | null;
}

const answeredId = (request: CloudRequest) => (request.answer?.body as { messages: Array<{ id: string }> }).messages[0].id;

/** Location, Contacts, Reaction, List, CTA URL and Mark As Read (API.md §7.1), over HTTP against the fake Cloud API and the sandbox. */
describeWithApp(
  'More outbound WhatsApp types and Mark As Read',
  {
    peers: { fake: () => FakeCloudApi.start() },
    env: ({ fake }) => ({ WHATSAPP_GRAPH_URL: fake.url, RATE_LIMIT_REQUESTS_PER_MINUTE: '100000' }),
  },
  (fx) => {
    let cloud: { id: string };
    let sandbox: { id: string };
    let bChannel: { id: string };

    const send = (api: HttpClient, operation: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      api.post(`${WA}/${operation}`, body, headers);
    const timeline = async (channelId: string, phone: string): Promise<TimelineEvent[]> => {
      const created = await fx.a.api.post('/v2/conversations/service-account/create', { channelId, phoneNumber: phone });
      assert.equal(created.status, 200, created.text);
      const page = await fx.a.api.get(`/v2/conversations/service-account/${created.body.conversation.id}/timeline?MaxResultCount=200`);
      return page.body.items;
    };
    const eventWhere = (channelId: string, phone: string, match: (e: TimelineEvent) => boolean, what: string) =>
      waitFor(async () => (await timeline(channelId, phone)).find(match), 10_000, what);
    const sentEvent = (channelId: string, phone: string, eventId: string) =>
      eventWhere(channelId, phone, (e) => e.eventId === eventId && e.status === 'Sent', `event ${eventId} Sent`);
    /** A signed Meta notification of one inbound text on the cloud channel; the recorded inbound event. */
    const inboundCloud = async (from: string, wamid: string) => {
      const status = await FakeCloudApi.notify(
        `${fx.t.baseUrl}/v1/whatsapp/webhooks/${cloud.id}`,
        APP_SECRET,
        FakeCloudApi.inboundText(from, wamid, 'hello'),
      );
      assert.equal(status, 200);
      return eventWhere(cloud.id, `+${from}`, (e) => e.sourceId === wamid, `inbound ${wamid}`);
    };
    /** An inbound text injected on the sandbox channel; the recorded inbound event. */
    const inboundSandbox = async (from: string) => {
      const res = await fx.t.admin.post(`/admin/v1/channels/${sandbox.id}/sandbox/inbound`, { fromNumber: from, type: 'text', text: 'hi' });
      assert.equal(res.status, 202, res.text);
      return eventWhere(sandbox.id, `+${from}`, (e) => e.sourceId === res.body.messageId, 'the sandbox inbound message');
    };
    const sandboxRequests = async (): Promise<Array<Record<string, unknown>>> =>
      (await fx.t.admin.get(`/admin/v1/channels/${sandbox.id}/sandbox/messages?MaxResultCount=1000`)).body.items.map(
        (m: { request: Record<string, unknown> }) => m.request,
      );

    before(async () => {
      const created = await fx.t.admin.post(`/admin/v1/workspaces/${fx.a.workspaceId}/channels`, {
        name: 'Cloud WA',
        type: 2,
        phoneNumber: '+14155550790',
        whatsApp: {
          provider: 'cloud-api',
          phoneNumberId: PHONE_NUMBER_ID,
          wabaId: '556',
          accessToken: TOKEN,
          appSecret: APP_SECRET,
          verifyToken: 'v',
        },
      });
      assert.equal(created.status, 200, created.text);
      cloud = created.body;
      sandbox = await createChannel(fx.t, fx.a.workspaceId, { phoneNumber: '+14155550791' });
      bChannel = await createChannel(fx.t, fx.b.workspaceId, { phoneNumber: '+14155550792' });
    });

    it('sends location, contacts, reactions, lists and CTA URL buttons with the channel’s token, exactly as the Cloud API documents them', async () => {
      const to = '14155550701';
      const inbound = await inboundCloud(to, 'wamid.types-in-701');
      const envelope = { messaging_product: 'whatsapp', recipient_type: 'individual', to };
      const cases: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
        [
          'sendLocation',
          { latitude: 24.7136, longitude: 46.6753, name: 'Riyadh store', address: 'King Fahd Rd, Riyadh' },
          { type: 'location', location: { latitude: 24.7136, longitude: 46.6753, name: 'Riyadh store', address: 'King Fahd Rd, Riyadh' } },
        ],
        [
          'sendLocation',
          { latitude: -33.8688, longitude: 151.2093 },
          { type: 'location', location: { latitude: -33.8688, longitude: 151.2093 } },
        ],
        [
          'sendContacts',
          {
            contacts: [
              {
                name: { formattedName: 'Sara Ahmed', firstName: 'Sara', lastName: 'Ahmed' },
                phones: [{ phone: '+966 50 123 4567', type: 'CELL' }],
                emails: [{ email: 'sara@example.com', type: 'WORK' }],
                org: { company: 'Example Co', title: 'Support lead' },
              },
              { name: { formattedName: 'Front desk' }, phones: [{ phone: '+14155550100' }] },
            ],
          },
          {
            type: 'contacts',
            contacts: [
              {
                name: { formatted_name: 'Sara Ahmed', first_name: 'Sara', last_name: 'Ahmed' },
                phones: [{ phone: '+966 50 123 4567', type: 'CELL' }],
                emails: [{ email: 'sara@example.com', type: 'WORK' }],
                org: { company: 'Example Co', title: 'Support lead' },
              },
              { name: { formatted_name: 'Front desk' }, phones: [{ phone: '+14155550100' }] },
            ],
          },
        ],
        [
          'sendReaction',
          { messageId: inbound.eventId, emoji: '👍🏽' },
          { type: 'reaction', reaction: { message_id: 'wamid.types-in-701', emoji: '👍🏽' } },
        ],
        [
          'sendReaction',
          { messageId: inbound.eventId, emoji: '' },
          { type: 'reaction', reaction: { message_id: 'wamid.types-in-701', emoji: '' } },
        ],
        [
          'sendList',
          {
            header: 'Shipping',
            body: 'Which shipping option do you prefer?',
            footer: 'Prices include VAT',
            buttonText: 'Choose',
            sections: [
              {
                title: 'Fast',
                rows: [
                  { id: 'express', title: 'Express', description: 'Next day' },
                  { id: 'priority', title: 'Priority' },
                ],
              },
              { title: 'Economy', rows: [{ id: 'standard', title: 'Standard', description: '5 to 7 days' }] },
            ],
          },
          {
            type: 'interactive',
            interactive: {
              type: 'list',
              header: { type: 'text', text: 'Shipping' },
              body: { text: 'Which shipping option do you prefer?' },
              footer: { text: 'Prices include VAT' },
              action: {
                button: 'Choose',
                sections: [
                  {
                    title: 'Fast',
                    rows: [
                      { id: 'express', title: 'Express', description: 'Next day' },
                      { id: 'priority', title: 'Priority' },
                    ],
                  },
                  { title: 'Economy', rows: [{ id: 'standard', title: 'Standard', description: '5 to 7 days' }] },
                ],
              },
            },
          },
        ],
        [
          'sendList',
          { body: 'Pick one', buttonText: 'Options', sections: [{ rows: [{ id: 'a', title: 'A' }] }] },
          {
            type: 'interactive',
            interactive: {
              type: 'list',
              body: { text: 'Pick one' },
              action: { button: 'Options', sections: [{ rows: [{ id: 'a', title: 'A' }] }] },
            },
          },
        ],
        [
          'sendCtaUrl',
          {
            header: 'Order A-17',
            body: 'Your order is on its way.',
            footer: 'Thanks',
            displayText: 'Track order',
            url: 'https://shop.example.com/track/A-17?ref=wa',
          },
          {
            type: 'interactive',
            interactive: {
              type: 'cta_url',
              header: { type: 'text', text: 'Order A-17' },
              body: { text: 'Your order is on its way.' },
              footer: { text: 'Thanks' },
              action: { name: 'cta_url', parameters: { display_text: 'Track order', url: 'https://shop.example.com/track/A-17?ref=wa' } },
            },
          },
        ],
        [
          'sendCtaUrl',
          { body: 'See the dates', displayText: 'See dates', url: 'https://shop.example.com/dates' },
          {
            type: 'interactive',
            interactive: {
              type: 'cta_url',
              body: { text: 'See the dates' },
              action: { name: 'cta_url', parameters: { display_text: 'See dates', url: 'https://shop.example.com/dates' } },
            },
          },
        ],
      ];
      const eventIds: string[] = [];
      for (const [operation, body, expected] of cases) {
        const before = fx.fake.sends.length;
        const res = await send(fx.a.api, operation, { channelId: cloud.id, toNumber: to, ...body });
        assert.equal(res.status, 200, `${operation}: ${res.text}`);
        assert.equal(res.body.status, 'accepted');
        const event = await sentEvent(cloud.id, `+${to}`, res.body.conversationEventId);
        const received = fx.fake.sends.slice(before);
        assert.equal(received.length, 1, `${operation}: one provider call`);
        const [request] = received;
        assert.equal(request.path, `/v25.0/${PHONE_NUMBER_ID}/messages`);
        assert.equal(request.auth, `Bearer ${TOKEN}`);
        assert.deepEqual(request.body, { ...envelope, ...expected }, operation);
        assert.equal(event.sourceId, answeredId(request), `${operation}: the provider's message id`);
        eventIds.push(event.eventId);
      }

      // The timeline keeps what was sent: the location, the message types, the message reacted to.
      const events = await timeline(cloud.id, `+${to}`);
      const byId = (id: string) => events.find((e) => e.eventId === id)!;
      assert.deepEqual(byId(eventIds[0]).location, {
        latitude: 24.7136,
        longitude: 46.6753,
        name: 'Riyadh store',
        address: 'King Fahd Rd, Riyadh',
      });
      assert.equal(byId(eventIds[0]).body, 'Riyadh store');
      assert.deepEqual(byId(eventIds[1]).location, { latitude: -33.8688, longitude: 151.2093, name: null, address: null });
      assert.deepEqual(
        eventIds.map((id) => byId(id).attachment?.messageType),
        ['Location', 'Location', 'Contact', 'Reaction', 'Reaction', 'Interactive', 'Interactive', 'Interactive', 'Interactive'],
      );
      assert.equal(byId(eventIds[2]).body, 'Sara Ahmed, Front desk');
      assert.equal(byId(eventIds[3]).attachment?.reactedMessageId, inbound.eventId);
      assert.equal(byId(eventIds[3]).body, '👍🏽');

      // A reaction to one of our own messages names that message's WhatsApp id.
      const location = byId(eventIds[0]);
      const reacted = await send(fx.a.api, 'sendReaction', { channelId: cloud.id, toNumber: to, messageId: location.eventId, emoji: '❤️' });
      assert.equal(reacted.status, 200, reacted.text);
      await sentEvent(cloud.id, `+${to}`, reacted.body.conversationEventId);
      assert.deepEqual(fx.fake.sends.at(-1)!.body.reaction, { message_id: location.sourceId, emoji: '❤️' });
    });

    it('marks an inbound message read, with the typing indicator when asked, also after the service window closed', async () => {
      const { InboundService } = await import('../../src/whatsapp/inbound/inbound.service.js');
      const from = '+14155550702';
      await fx.t.app.get(InboundService).receive(fx.a.workspaceId, cloud.id, {
        providerMessageId: 'wamid.types-old-702',
        fromNumber: from,
        type: 'text',
        text: 'yesterday',
        receivedAt: new Date(Date.now() - 25 * 3600 * 1000).toISOString(),
      });
      const [old] = await timeline(cloud.id, from);
      assert.equal(old.sourceId, 'wamid.types-old-702');

      const plain = await send(fx.a.api, 'markAsRead', { channelId: cloud.id, messageId: old.eventId });
      assert.equal(plain.status, 204, plain.text);
      assert.equal(plain.text, '');
      const read = await waitFor(
        async () => fx.fake.reads.find((r) => r.body.message_id === 'wamid.types-old-702'),
        10_000,
        'Mark As Read',
      );
      assert.equal(read.path, `/v25.0/${PHONE_NUMBER_ID}/messages`);
      assert.equal(read.auth, `Bearer ${TOKEN}`);
      assert.deepEqual(read.body, { messaging_product: 'whatsapp', status: 'read', message_id: 'wamid.types-old-702' });
      assert.deepEqual(read.answer?.body, { success: true });

      const typing = await send(fx.a.api, 'markAsRead', { ChannelId: cloud.id, MessageId: old.eventId, TypingIndicator: true });
      assert.equal(typing.status, 204, typing.text);
      const withTyping = await waitFor(
        async () => (fx.fake.reads.length >= 2 ? fx.fake.reads.at(-1) : undefined),
        10_000,
        'the second Mark As Read',
      );
      assert.deepEqual(withTyping.body, {
        messaging_product: 'whatsapp',
        status: 'read',
        message_id: 'wamid.types-old-702',
        typing_indicator: { type: 'text' },
      });
      // Reading is no message: the timeline is unchanged.
      assert.equal((await timeline(cloud.id, from)).length, 1);
    });

    it('refuses every new free-form send while the service window is closed, writing nothing', async () => {
      const from = '+14155550702';
      const [old] = await timeline(cloud.id, from);
      const sendsBefore = fx.fake.sendsTo('14155550702').length;
      const base = { channelId: cloud.id, toNumber: from };
      const cases: Array<[string, Record<string, unknown>]> = [
        ['sendLocation', { latitude: 1, longitude: 2 }],
        ['sendContacts', { contacts: [{ name: { formattedName: 'Desk' } }] }],
        ['sendReaction', { messageId: old.eventId, emoji: '👍' }],
        ['sendList', { body: 'Pick', buttonText: 'Open', sections: [{ rows: [{ id: 'a', title: 'A' }] }] }],
        ['sendCtaUrl', { body: 'Open', displayText: 'Open', url: 'https://shop.example.com' }],
      ];
      for (const [operation, body] of cases) {
        const res = await send(fx.a.api, operation, { ...base, ...body });
        assert.equal(res.status, 400, `${operation}: ${res.text}`);
        assert.equal(res.body.error.code, 'WhatsApp:ServiceWindowExpired', operation);
      }
      assert.equal((await timeline(cloud.id, from)).length, 1);
      assert.equal(fx.fake.sendsTo('14155550702').length, sendsBefore);
    });

    it('sends every new type through the sandbox, which records the exact Cloud API bodies, Mark As Read included', async () => {
      const from = '14155550711';
      const inbound = await inboundSandbox(from);
      const envelope = { messaging_product: 'whatsapp', recipient_type: 'individual', to: from };
      const cases: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
        [
          'sendLocation',
          { latitude: 21.4225, longitude: 39.8262, name: 'Makkah' },
          { type: 'location', location: { latitude: 21.4225, longitude: 39.8262, name: 'Makkah' } },
        ],
        [
          'sendContacts',
          {
            contacts: [
              { name: { formattedName: 'Desk', lastName: 'Front' }, emails: [{ email: 'desk@example.com' }], org: { company: 'Co' } },
            ],
          },
          {
            type: 'contacts',
            contacts: [
              { name: { formatted_name: 'Desk', last_name: 'Front' }, emails: [{ email: 'desk@example.com' }], org: { company: 'Co' } },
            ],
          },
        ],
        [
          'sendReaction',
          { messageId: inbound.eventId, emoji: '🇸🇦' },
          { type: 'reaction', reaction: { message_id: inbound.sourceId, emoji: '🇸🇦' } },
        ],
        [
          'sendList',
          {
            body: 'Pick',
            footer: 'f',
            buttonText: 'Open',
            sections: [{ title: 'S', rows: [{ id: 'r1', title: 'One', description: 'first' }] }],
          },
          {
            type: 'interactive',
            interactive: {
              type: 'list',
              body: { text: 'Pick' },
              footer: { text: 'f' },
              action: { button: 'Open', sections: [{ title: 'S', rows: [{ id: 'r1', title: 'One', description: 'first' }] }] },
            },
          },
        ],
        [
          'sendCtaUrl',
          { header: 'H', body: 'Open it', displayText: 'Open', url: 'https://shop.example.com/x' },
          {
            type: 'interactive',
            interactive: {
              type: 'cta_url',
              header: { type: 'text', text: 'H' },
              body: { text: 'Open it' },
              action: { name: 'cta_url', parameters: { display_text: 'Open', url: 'https://shop.example.com/x' } },
            },
          },
        ],
      ];
      for (const [operation, body] of cases) {
        const res = await send(fx.a.api, operation, { channelId: sandbox.id, toNumber: from, ...body });
        assert.equal(res.status, 200, `${operation}: ${res.text}`);
        await sentEvent(sandbox.id, `+${from}`, res.body.conversationEventId);
      }
      const read = await send(fx.a.api, 'markAsRead', { channelId: sandbox.id, messageId: inbound.eventId, typingIndicator: true });
      assert.equal(read.status, 204, read.text);
      const recorded = await waitFor(async () => {
        const all = await sandboxRequests();
        return all.length >= cases.length + 1 ? all : undefined;
      });
      for (const [operation, , expected] of cases) {
        assert.ok(
          recorded.some((r) => isDeepStrictEqual(r, { ...envelope, ...expected })),
          `${operation}: ${JSON.stringify(recorded.filter((r) => r.type === expected.type))}`,
        );
      }
      const readRecord = recorded.find((r) => r.status === 'read');
      assert.deepEqual(readRecord, {
        messaging_product: 'whatsapp',
        status: 'read',
        message_id: inbound.sourceId,
        typing_indicator: { type: 'text' },
      });
    });

    it('answers each invalid field with a 400 naming it', async () => {
      const base = { channelId: cloud.id, toNumber: '14155550701' };
      const row = (id: string) => ({ id, title: 'Row' });
      const cases: Array<[string, Record<string, unknown>, string]> = [
        ['sendLocation', { latitude: 90.5, longitude: 0 }, 'latitude'],
        ['sendLocation', { latitude: -91, longitude: 0 }, 'latitude'],
        ['sendLocation', { latitude: 0, longitude: 180.01 }, 'longitude'],
        ['sendLocation', { latitude: 0, longitude: -181 }, 'longitude'],
        ['sendLocation', { latitude: 'north', longitude: 0 }, 'latitude'],
        ['sendLocation', { latitude: 0 }, 'longitude'],
        ['sendLocation', { latitude: 0, longitude: 0, name: '' }, 'name'],
        ['sendContacts', { contacts: [] }, 'contacts'],
        ['sendContacts', { contacts: Array.from({ length: 11 }, (_, i) => ({ name: { formattedName: `C${i}` } })) }, 'contacts'],
        ['sendContacts', { contacts: [{ name: { firstName: 'No formatted name' } }] }, 'contacts[0].name.formattedName'],
        ['sendContacts', { contacts: [{ phones: [{ phone: '+1' }] }] }, 'contacts[0].name'],
        [
          'sendContacts',
          { contacts: [{ name: { formattedName: 'A' }, emails: [{ email: 'not-an-email' }] }] },
          'contacts[0].emails[0].email',
        ],
        ['sendContacts', { contacts: [{ name: { formattedName: 'A' }, phones: [{ type: 'CELL' }] }] }, 'contacts[0].phones[0].phone'],
        ['sendReaction', { messageId: '01970f3e-9b5c-7d2e-8f30-4b5c6d7e8f90', emoji: 'ok' }, 'emoji'],
        ['sendReaction', { messageId: '01970f3e-9b5c-7d2e-8f30-4b5c6d7e8f90', emoji: '👍👍' }, 'emoji'],
        ['sendReaction', { messageId: '', emoji: '👍' }, 'messageId'],
        ['sendReaction', { messageId: 'x'.repeat(201), emoji: '👍' }, 'messageId'],
        ['sendList', { body: 'b', buttonText: 'x'.repeat(21), sections: [{ rows: [row('a')] }] }, 'buttonText'],
        ['sendList', { body: '', buttonText: 'Open', sections: [{ rows: [row('a')] }] }, 'body'],
        ['sendList', { body: 'x'.repeat(4097), buttonText: 'Open', sections: [{ rows: [row('a')] }] }, 'body'],
        ['sendList', { body: 'b', header: 'x'.repeat(61), buttonText: 'Open', sections: [{ rows: [row('a')] }] }, 'header'],
        ['sendList', { body: 'b', buttonText: 'Open', sections: [] }, 'sections'],
        [
          'sendList',
          { body: 'b', buttonText: 'Open', sections: Array.from({ length: 11 }, (_, i) => ({ title: `S${i}`, rows: [row(`r${i}`)] })) },
          'sections',
        ],
        ['sendList', { body: 'b', buttonText: 'Open', sections: [{ rows: [] }] }, 'sections[0].rows'],
        ['sendList', { body: 'b', buttonText: 'Open', sections: [{ rows: [row('x'.repeat(201))] }] }, 'sections[0].rows[0].id'],
        [
          'sendList',
          { body: 'b', buttonText: 'Open', sections: [{ rows: [{ id: 'a', title: 'x'.repeat(25) }] }] },
          'sections[0].rows[0].title',
        ],
        [
          'sendList',
          { body: 'b', buttonText: 'Open', sections: [{ rows: [{ id: 'a', title: 'A', description: 'x'.repeat(73) }] }] },
          'sections[0].rows[0].description',
        ],
        [
          'sendList',
          {
            body: 'b',
            buttonText: 'Open',
            sections: [
              { title: 'One', rows: Array.from({ length: 6 }, (_, i) => row(`a${i}`)) },
              { title: 'Two', rows: Array.from({ length: 5 }, (_, i) => row(`b${i}`)) },
            ],
          },
          'sections',
        ],
        [
          'sendList',
          {
            body: 'b',
            buttonText: 'Open',
            sections: [
              { title: 'One', rows: [row('same')] },
              { title: 'Two', rows: [row('same')] },
            ],
          },
          'sections[1].rows[0].id',
        ],
        [
          'sendList',
          { body: 'b', buttonText: 'Open', sections: [{ title: 'One', rows: [row('a')] }, { rows: [row('b')] }] },
          'sections[1].title',
        ],
        ['sendCtaUrl', { body: 'b', displayText: 'Open', url: 'http://shop.example.com' }, 'url'],
        ['sendCtaUrl', { body: 'b', displayText: 'Open', url: 'not a url' }, 'url'],
        ['sendCtaUrl', { body: 'b', displayText: 'x'.repeat(21), url: 'https://shop.example.com' }, 'displayText'],
        ['sendCtaUrl', { body: '', displayText: 'Open', url: 'https://shop.example.com' }, 'body'],
        ['sendCtaUrl', { body: 'x'.repeat(1025), displayText: 'Open', url: 'https://shop.example.com' }, 'body'],
        ['markAsRead', { channelId: cloud.id, messageId: '' }, 'messageId'],
        [
          'markAsRead',
          { channelId: cloud.id, messageId: '01970f3e-9b5c-7d2e-8f30-4b5c6d7e8f90', typingIndicator: 'yes' },
          'typingIndicator',
        ],
        ['sendImage', { imageUrl: 'https://img.example.com/a.png', mediaId: '01970f3e-ac6d-7e3f-9041-5c6d7e8f9a01' }, 'imageUrl'],
        ['sendImage', { caption: 'neither' }, 'imageUrl'],
        ['sendImage', { mediaId: 'not-an-id' }, 'mediaId'],
        ['sendAudio', {}, 'audioUrl'],
        ['sendVideo', { videoUrl: 'ftp://cdn.example.com/v.mp4' }, 'videoUrl'],
        ['sendFile', { fileUrl: 'https://cdn.example.com/i.pdf' }, 'fileName'],
      ];
      for (const [operation, body, member] of cases) {
        const res = await send(fx.a.api, operation, { ...base, ...body });
        const label = `${operation} ${JSON.stringify(body).slice(0, 90)}`;
        assert.equal(res.status, 400, `${label} → ${res.status} ${res.text}`);
        const members = (res.body.error.validationErrors as Array<{ members: string[] }>).flatMap((e) => e.members);
        assert.ok(members.includes(member), `${label}: ${member} not in ${JSON.stringify(members)}`);
      }
      const both = await send(fx.a.api, 'sendImage', {
        ...base,
        imageUrl: 'https://img.example.com/a.png',
        mediaId: '01970f3e-ac6d-7e3f-9041-5c6d7e8f9a01',
      });
      assert.match(both.body.message, /Give exactly one of imageUrl and mediaId/);
    });

    it('refuses a reaction or Mark As Read on a message that does not fit, naming messageId', async () => {
      const to = '14155550721';
      const other = '14155550722';
      const inbound = await inboundCloud(to, 'wamid.types-in-721');
      const otherInbound = await inboundCloud(other, 'wamid.types-in-722');
      const sandboxInbound = await inboundSandbox(to);
      const reaction = await send(fx.a.api, 'sendReaction', { channelId: cloud.id, toNumber: to, messageId: inbound.eventId, emoji: '👍' });
      assert.equal(reaction.status, 200, reaction.text);
      await sentEvent(cloud.id, `+${to}`, reaction.body.conversationEventId);
      const outbound = await send(fx.a.api, 'sendLocation', { channelId: cloud.id, toNumber: to, latitude: 1, longitude: 2 });
      await sentEvent(cloud.id, `+${to}`, outbound.body.conversationEventId);

      const cases: Array<[string, Record<string, unknown>, RegExp]> = [
        // Another contact's message, and the same contact's message on another channel.
        ['sendReaction', { channelId: cloud.id, toNumber: to, messageId: otherInbound.eventId, emoji: '👍' }, /conversation/],
        ['sendReaction', { channelId: cloud.id, toNumber: to, messageId: sandboxInbound.eventId, emoji: '👍' }, /conversation/],
        ['sendReaction', { channelId: cloud.id, toNumber: to, messageId: reaction.body.conversationEventId, emoji: '👎' }, /reaction/],
        ['markAsRead', { channelId: cloud.id, messageId: outbound.body.conversationEventId }, /inbound/],
        ['markAsRead', { channelId: cloud.id, messageId: sandboxInbound.eventId }, /inbound WhatsApp message of this channel/],
      ];
      for (const [operation, body, message] of cases) {
        const res = await send(fx.a.api, operation, body);
        assert.equal(res.status, 400, `${operation} → ${res.text}`);
        assert.equal(res.body.error.code, 'WhatsApp:InvalidMessageId');
        assert.deepEqual(res.body.error.validationErrors[0].members, ['messageId']);
        assert.match(res.body.message, message);
      }
    });

    it('answers 404 for another workspace’s channel or message on every new route', async () => {
      const to = '14155550731';
      const inbound = await inboundCloud(to, 'wamid.types-in-731');
      const bodies: Array<[string, Record<string, unknown>]> = [
        ['sendLocation', { toNumber: to, latitude: 1, longitude: 2 }],
        ['sendContacts', { toNumber: to, contacts: [{ name: { formattedName: 'Desk' } }] }],
        ['sendReaction', { toNumber: to, messageId: inbound.eventId, emoji: '👍' }],
        ['sendList', { toNumber: to, body: 'Pick', buttonText: 'Open', sections: [{ rows: [{ id: 'a', title: 'A' }] }] }],
        ['sendCtaUrl', { toNumber: to, body: 'Open', displayText: 'Open', url: 'https://shop.example.com' }],
        ['markAsRead', { messageId: inbound.eventId }],
        ['sendImage', { toNumber: to, imageUrl: 'https://img.example.com/a.png' }],
      ];
      for (const [operation, body] of bodies) {
        const res = await send(fx.b.api, operation, { channelId: cloud.id, ...body });
        assert.equal(res.status, 404, `${operation}: ${res.text}`);
        assert.equal(res.body.error.code, 'Channels:ChannelNotFound', operation);
      }
      // B's own channel, A's message (and an id no one has): not found, existence not revealed.
      for (const messageId of [inbound.eventId, '01970f3e-9b5c-7d2e-8f30-4b5c6d7e8f90']) {
        const reaction = await send(fx.b.api, 'sendReaction', { channelId: bChannel.id, toNumber: to, messageId, emoji: '👍' });
        assert.equal(reaction.status, 404, reaction.text);
        assert.equal(reaction.body.error.code, 'WhatsApp:MessageNotFound');
        const read = await send(fx.b.api, 'markAsRead', { channelId: bChannel.id, messageId });
        assert.equal(read.status, 404, read.text);
        assert.equal(read.body.error.code, 'WhatsApp:MessageNotFound');
      }
      assert.equal(fx.fake.sendsTo(to).length, 0);
      assert.equal(fx.fake.reads.filter((r) => r.body.message_id === 'wamid.types-in-731').length, 0);
    });

    it('answers a repeated Idempotency-Key with the first answer and sends once; another body under the key is a 422', async () => {
      const to = '14155550741';
      await inboundCloud(to, 'wamid.types-in-741');
      const body = { channelId: cloud.id, toNumber: to, latitude: 10, longitude: 20, name: 'Once' };
      const first = await send(fx.a.api, 'sendLocation', body, { 'Idempotency-Key': 'location-once' });
      const again = await send(fx.a.api, 'sendLocation', body, { 'Idempotency-Key': 'location-once' });
      assert.equal(first.status, 200, first.text);
      assert.equal(again.status, 200, again.text);
      assert.deepEqual(again.body, first.body);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      await sentEvent(cloud.id, `+${to}`, first.body.conversationEventId);
      const other = await send(fx.a.api, 'sendLocation', { ...body, name: 'Twice' }, { 'Idempotency-Key': 'location-once' });
      assert.equal(other.status, 422, other.text);
      await new Promise((resolve) => setTimeout(resolve, 1300));
      assert.equal(fx.fake.sendsTo(to).length, 1);
    });

    it('takes every request example of the OpenAPI document once its ids name the caller’s channel and message', async () => {
      // The free-form examples write to the demo's sandbox customer: that customer opens the window.
      const inbound = await inboundCloud(DEMO_NUMBERS.sandboxCustomer, 'wamid.types-in-example');
      // The Send Template examples name the demo seed's templates: the account has them too.
      fx.fake.templatePages = [{ data: DEMO_TEMPLATES.map((template, i) => ({ ...template, id: String(9100 + i) })) }];
      const synced = await fx.t.admin.post(`/admin/v1/channels/${cloud.id}/templates/sync`);
      assert.deepEqual(synced.body, { synced: DEMO_TEMPLATES.length }, synced.text);
      const document = (await fx.t.http.get('/docs-json')).body as {
        paths: Record<
          string,
          { post?: { requestBody?: { content: Record<string, { examples?: Record<string, { value: Record<string, unknown> }> }> } } }
        >;
      };
      let tried = 0;
      for (const [path, item] of Object.entries(document.paths)) {
        const examples = item.post?.requestBody?.content['application/json']?.examples;
        if (!path.startsWith(`${WA}/`) || !examples) continue;
        for (const [name, example] of Object.entries(examples)) {
          const body = { ...example.value, channelId: cloud.id, ...('messageId' in example.value ? { messageId: inbound.eventId } : {}) };
          const res = await fx.a.api.post(path, body);
          tried++;
          if ('mediaId' in body) {
            // Valid as it stands; the placeholder names no upload of this workspace.
            assert.equal(res.status, 404, `${path} ${name}: ${res.text}`);
            assert.equal(res.body.error.code, 'Media:NotFound');
          } else {
            assert.ok(res.status === 200 || res.status === 204, `${path} ${name}: ${res.status} ${res.text}`);
          }
        }
      }
      assert.equal(tried, 21);
    });
  },
);
