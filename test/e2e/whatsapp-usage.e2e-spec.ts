import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { approvedTemplate, createCloudChannel } from '../support/cloud-channel.js';
import * as cloud from '../support/cloud-notifications.js';
import { FakeCloudApi } from '../support/fake-cloud-api.js';
import { describeWithApp } from '../support/describe-with-app.js';
import { createChannel, waitFor } from '../support/fixtures.js';
import { verifySignature, WebhookReceiver } from '../support/webhook-receiver.js';

const TOKEN = 'EAAG-usage-token';
const APP_SECRET = 'usage-app-secret';

type Payload = Record<string, any>;

const pricing = (category: string, type = 'regular') => ({ pricing_model: 'PMP', type, category, billable: type === 'regular' });
const today = () => new Date().toISOString().slice(0, 10);
const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000);

/**
 * What each message cost (API.md §14): the pricing of Meta's status webhooks kept on the message and
 * forwarded in the webhook, the usage rollup read by day, category and campaign, CampaignDto.usage,
 * and the workspace's rate card.
 */
describeWithApp(
  'WhatsApp usage: pricing per message, GET /v1/whatsapp/usage, campaign usage, the rate card',
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
    let channelB: { id: string };
    let customerSeq = 0;
    const nextCustomer = () => `1415557${String(1000 + ++customerSeq).padStart(4, '0')}`;

    const notify = async (notification: unknown) => {
      const status = await FakeCloudApi.notify(`${fx.t.baseUrl}/v1/whatsapp/webhooks/${channel.id}`, APP_SECRET, notification);
      assert.equal(status, 200);
    };
    const webhooks = (): Payload[] => fx.receiver.at('/usage').map((r) => verifySignature(r, fx.a.webhookSecret) as Payload);
    const sentWebhookOf = (eventId: string) =>
      waitFor(async () => webhooks().find((p) => p.eventId === eventId && p.status === 'Sent'), 15_000, `the Sent webhook of ${eventId}`);
    /** A text reply to a customer who just wrote; its provider message id once Meta took it. */
    const sendReply = async (): Promise<{ customer: string; wamid: string; eventId: string }> => {
      const customer = nextCustomer();
      await notify(cloud.inbound({ phone: customer }, `wamid.in-${customer}`, cloud.content.text('hello')));
      await waitFor(async () => webhooks().find((p) => p.providerMessageId === `wamid.in-${customer}`), 15_000, 'the inbound message');
      const sent = await fx.a.api.post('/v1/whatsapp/service-account/sendText', { channelId: channel.id, toNumber: customer, text: 'hi' });
      assert.equal(sent.status, 200, sent.text);
      const accepted = await sentWebhookOf(sent.body.conversationEventId);
      return { customer, wamid: accepted.providerMessageId, eventId: sent.body.conversationEventId };
    };
    const usage = async (query: string, ws = fx.a) => {
      const res = await ws.api.get(`/v1/whatsapp/usage?${query}`);
      assert.equal(res.status, 200, res.text);
      return res.body as Payload;
    };
    /** Polls the usage of `query` until its totals count `messages` messages. */
    const usageCounting = (query: string, messages: number) =>
      waitFor(
        async () => {
          const body = await usage(query);
          return body.totals.billable + body.totals.free === messages ? body : undefined;
        },
        15_000,
        `usage counting ${messages} messages`,
      );

    before(async () => {
      channel = await createCloudChannel(fx.t, fx.a.workspaceId, fx.fake, {
        phoneNumberId: '106540352249001',
        accessToken: TOKEN,
        appSecret: APP_SECRET,
        phoneNumber: '+14155550781',
        webhookUrl: fx.receiver.url('/usage'),
        templates: [approvedTemplate('usage_promo', 'MARKETING', 'Our autumn offers are here.')],
      });
      channelB = await createCloudChannel(fx.t, fx.b.workspaceId, null, {
        phoneNumberId: '106540352249002',
        accessToken: TOKEN,
        appSecret: APP_SECRET,
        phoneNumber: '+14155550782',
      });
    });

    it('keeps pricing on the message and in the webhook, and counts each message once by category and day', async () => {
      const marketing = await sendReply();
      const utility = await sendReply();
      const service = await sendReply();
      const lite = await sendReply();
      const international = await sendReply();

      // Meta repeats a message's pricing on sent, delivered and read: counted once.
      const onMarketing = { recipientId: marketing.customer, pricing: pricing('marketing') };
      await notify(cloud.status(marketing.wamid, 'sent', onMarketing));
      await notify(cloud.status(marketing.wamid, 'delivered', onMarketing));
      const delivered = await waitFor(
        async () => webhooks().find((p) => p.eventId === marketing.eventId && p.status === 'Delivered'),
        15_000,
        'the Delivered webhook',
      );
      await notify(cloud.status(marketing.wamid, 'read', onMarketing));
      await notify(cloud.status(utility.wamid, 'delivered', { recipientId: utility.customer, pricing: pricing('utility') }));
      await notify(
        cloud.status(service.wamid, 'sent', { recipientId: service.customer, pricing: pricing('service', 'free_customer_service') }),
      );
      const twoDaysAgo = daysAgo(2);
      await notify(
        cloud.status(lite.wamid, 'delivered', {
          recipientId: lite.customer,
          pricing: pricing('marketing_lite'),
          timestamp: String(Math.floor(twoDaysAgo.getTime() / 1000)),
        }),
      );
      await notify(
        cloud.status(international.wamid, 'delivered', {
          recipientId: international.customer,
          pricing: pricing('authentication_international'),
        }),
      );

      const read = await waitFor(
        async () => webhooks().find((p) => p.eventId === marketing.eventId && p.status === 'Read'),
        15_000,
        'the Read webhook',
      );
      assert.deepEqual(read.pricing, { model: 'PMP', type: 'regular', category: 'marketing' });
      assert.deepEqual(delivered.pricing, { model: 'PMP', type: 'regular', category: 'marketing' });
      assert.equal(delivered.isBillable, true);
      // Before any status carried pricing, the webhook says so with null.
      assert.equal((await sentWebhookOf(marketing.eventId)).pricing, null);

      const byCategory = await usageCounting(`channelId=${channel.id}&groupBy=category`, 5);
      assert.equal(byCategory.groupBy, 'category');
      assert.equal(byCategory.to, today());
      assert.equal(byCategory.channelId, channel.id);
      assert.equal(byCategory.currency, null);
      assert.deepEqual(byCategory.totals, {
        billable: 4,
        free: 1,
        estimatedCost: null,
        byCategory: {
          authentication_international: { billable: 1, free: 0 },
          marketing: { billable: 1, free: 0 },
          marketing_lite: { billable: 1, free: 0 },
          service: { billable: 0, free: 1 },
          utility: { billable: 1, free: 0 },
        },
      });
      assert.deepEqual(
        byCategory.items.map((i: Payload) => [i.category, i.billable, i.free, i.day, i.campaignId]),
        [
          ['authentication_international', 1, 0, null, null],
          ['marketing', 1, 0, null, null],
          ['marketing_lite', 1, 0, null, null],
          ['service', 0, 1, null, null],
          ['utility', 1, 0, null, null],
        ],
      );
      // A later status repeating the pricing changes no count.
      await notify(cloud.status(utility.wamid, 'read', { recipientId: utility.customer, pricing: pricing('utility') }));
      await waitFor(
        async () => webhooks().find((p) => p.eventId === utility.eventId && p.status === 'Read'),
        15_000,
        'the utility Read webhook',
      );
      assert.deepEqual((await usage(`channelId=${channel.id}`)).totals.byCategory.utility, { billable: 1, free: 0 });

      const byDay = await usage(`channelId=${channel.id}&groupBy=day`);
      assert.deepEqual(
        byDay.items.map((i: Payload) => [i.day, i.billable, i.free, Object.keys(i.byCategory)]),
        [
          [twoDaysAgo.toISOString().slice(0, 10), 1, 0, ['marketing_lite']],
          [today(), 3, 1, ['authentication_international', 'marketing', 'service', 'utility']],
        ],
      );
      // A range that leaves the older day out; and the days before any message, empty.
      const recent = await usage(`channelId=${channel.id}&from=${daysAgo(1).toISOString().slice(0, 10)}&to=${today()}`);
      assert.equal(recent.totals.byCategory.marketing_lite, undefined);
      assert.equal(recent.totals.billable, 3);
      const before = await usage(`from=2026-01-01&to=2026-01-31`);
      assert.deepEqual([before.totals.billable, before.totals.free, before.items], [0, 0, []]);
    });

    it("counts a campaign's messages to the campaign: CampaignDto.usage and groupBy=campaign", async () => {
      const contacts: string[] = [];
      for (const name of ['Ana', 'Ben']) {
        const digits = nextCustomer();
        const res = await fx.a.api.post('/v1/contacts', { name, phoneNumber: `+${digits}` });
        assert.equal(res.status, 200, res.text);
        contacts.push(res.body.id);
      }
      const created = await fx.a.api.post('/v1/campaigns', {
        name: 'Autumn',
        channelId: channel.id,
        kind: 'WhatsAppTemplate',
        template: { templateName: 'usage_promo', language: 'en_US' },
        audience: { contactIds: contacts },
      });
      assert.equal(created.status, 200, created.text);
      assert.deepEqual(created.body.usage, { billable: 0, free: 0, byCategory: {} });
      assert.equal((await fx.a.api.post(`/v1/campaigns/${created.body.id}/start`, {})).status, 200);
      const recipients = await waitFor(
        async () => {
          const res = await fx.a.api.get(`/v1/campaigns/${created.body.id}/recipients`);
          const items = res.body.items as Payload[];
          return items.length === 2 && items.every((r) => r.conversationEventId) ? items : undefined;
        },
        20_000,
        'both recipients sent',
      );
      for (const recipient of recipients) {
        const sent = await sentWebhookOf(recipient.conversationEventId);
        const on = { recipientId: recipient.phoneNumber.replace('+', ''), pricing: pricing('marketing') };
        await notify(cloud.status(sent.providerMessageId, 'delivered', on));
        await notify(cloud.status(sent.providerMessageId, 'read', on));
      }
      const campaign = await waitFor(
        async () => {
          const res = await fx.a.api.get(`/v1/campaigns/${created.body.id}`);
          return res.body.usage.billable === 2 ? res.body : undefined;
        },
        15_000,
        'the campaign usage',
      );
      assert.deepEqual(campaign.usage, { billable: 2, free: 0, byCategory: { marketing: { billable: 2, free: 0 } } });
      const listed = await fx.a.api.get('/v1/campaigns');
      assert.deepEqual(listed.body.items.find((c: Payload) => c.id === created.body.id).usage, campaign.usage);

      const byCampaign = await usageCounting(`channelId=${channel.id}&groupBy=campaign`, 7);
      const ofCampaign = byCampaign.items.find((i: Payload) => i.campaignId === created.body.id);
      assert.deepEqual([ofCampaign.billable, ofCampaign.free, ofCampaign.byCategory], [2, 0, { marketing: { billable: 2, free: 0 } }]);
      const ofNone = byCampaign.items.find((i: Payload) => i.campaignId === null);
      assert.deepEqual([ofNone.billable, ofNone.free], [4, 1], 'the messages of no campaign');
    });

    it('prices usage with the workspace rate card only, and refuses a bad one', async () => {
      const none = await fx.a.api.get('/v1/whatsapp/rate-card');
      assert.equal(none.status, 404, none.text);
      assert.equal(none.body.error.code, 'WhatsApp:RateCardNotFound');

      const bad = async (body: Payload, code: string, member?: string) => {
        const res = await fx.a.api.put('/v1/whatsapp/rate-card', body);
        assert.equal(res.status, 400, res.text);
        assert.equal(res.body.error.code, code, res.text);
        if (member) assert.deepEqual(res.body.error.validationErrors[0].members, [member]);
      };
      await bad({ currency: 'XYZ', perCategory: { marketing: 0.04 } }, 'WhatsApp:InvalidCurrency', 'currency');
      await bad({ currency: 'EURO', perCategory: { marketing: 0.04 } }, 'WhatsApp:InvalidCurrency', 'currency');
      await bad({ currency: 'EUR', perCategory: { marketing: -0.01 } }, 'WhatsApp:InvalidPrice', 'perCategory.marketing');
      await bad({ currency: 'EUR', perCategory: { marketing: '0.04' } }, 'WhatsApp:InvalidPrice', 'perCategory.marketing');
      await bad({ currency: 'EUR', perCategory: { promo: 0.04 } }, 'WhatsApp:UnknownPricingCategory', 'perCategory.promo');
      await bad({ currency: 'EUR', perCategory: {} }, 'WhatsApp:InvalidPrice');
      assert.equal((await fx.a.api.put('/v1/whatsapp/rate-card', { currency: 'EUR' })).status, 400);
      assert.equal((await fx.a.api.get('/v1/whatsapp/rate-card')).status, 404, 'a refused card stores nothing');

      const put = await fx.a.api.put('/v1/whatsapp/rate-card', { currency: 'eur', perCategory: { marketing: 0.0456, Utility: 0.0132 } });
      assert.equal(put.status, 200, put.text);
      assert.deepEqual([put.body.currency, put.body.perCategory], ['EUR', { marketing: 0.0456, utility: 0.0132 }]);
      const got = await fx.a.api.get('/v1/whatsapp/rate-card');
      assert.deepEqual(got.body, put.body);

      const priced = await usage(`channelId=${channel.id}&groupBy=category`);
      assert.equal(priced.currency, 'EUR');
      // 3 marketing (one reply, two campaign sends) and 1 utility; marketing_lite and authentication_international have no price.
      assert.equal(priced.totals.estimatedCost, Math.round((3 * 0.0456 + 0.0132) * 1e6) / 1e6);
      assert.deepEqual(priced.unpricedCategories.sort(), ['authentication_international', 'marketing_lite']);
      const marketing = priced.items.find((i: Payload) => i.category === 'marketing');
      assert.equal(marketing.estimatedCost, Math.round(3 * 0.0456 * 1e6) / 1e6);
      assert.equal(priced.items.find((i: Payload) => i.category === 'service').estimatedCost, 0);

      const replaced = await fx.a.api.put('/v1/whatsapp/rate-card', { currency: 'BRL', perCategory: { marketing: 0.3 } });
      assert.equal(replaced.status, 200, replaced.text);
      assert.deepEqual(replaced.body.perCategory, { marketing: 0.3 });
    });

    it("keeps each workspace's usage and rate card its own, and refuses bad queries", async () => {
      const foreign = await fx.b.api.get(`/v1/whatsapp/usage?channelId=${channel.id}`);
      assert.equal(foreign.status, 404, foreign.text);
      const own = await usage('groupBy=campaign', fx.b);
      assert.deepEqual([own.totals.billable, own.totals.free, own.items, own.currency], [0, 0, [], null]);
      assert.deepEqual((await usage(`channelId=${channelB.id}`, fx.b)).items, []);
      assert.equal((await fx.b.api.get('/v1/whatsapp/rate-card')).status, 404);

      const refused = async (query: string, code?: string) => {
        const res = await fx.a.api.get(`/v1/whatsapp/usage?${query}`);
        assert.equal(res.status, 400, `${query}: ${res.text}`);
        if (code) assert.equal(res.body.error.code, code);
      };
      await refused('from=2026-11-10&to=2026-11-01', 'WhatsApp:InvalidUsageRange');
      await refused('from=2026-02-30&to=2026-03-01', 'WhatsApp:InvalidUsageRange');
      await refused('from=2024-01-01&to=2026-01-01', 'WhatsApp:InvalidUsageRange');
      await refused('from=yesterday');
      await refused('groupBy=week');
      await refused('channelId=not-a-uuid');
    });

    it("the sandbox's statuses carry pricing as Meta's do: a template charged in its category, a reply free in the service window, so usage counts in the sandbox", async () => {
      const sandbox = await createChannel(fx.t, fx.a.workspaceId, {
        name: 'Sandbox usage',
        phoneNumber: '+14155550783',
        webhookUrl: fx.receiver.url('/usage'),
      });
      const template = await fx.a.api.post('/v1/whatsapp/templates', {
        channelId: sandbox.id,
        name: 'sandbox_offer',
        language: 'en_US',
        category: 'MARKETING',
        components: [{ type: 'BODY', text: 'Our winter offers are here.' }],
      });
      assert.equal(template.status, 200, template.text);
      const customer = nextCustomer();
      const sent = await fx.a.api.post('/v1/whatsapp/service-account/sendTemplate', {
        channelId: sandbox.id,
        templateName: 'sandbox_offer',
        language: 'en_US',
        toNumber: customer,
      });
      assert.equal(sent.status, 200, sent.text);
      const inbound = await fx.t.admin.post(`/admin/v1/channels/${sandbox.id}/sandbox/inbound`, {
        fromNumber: customer,
        type: 'text',
        text: 'tell me more',
      });
      assert.equal(inbound.status < 300, true, inbound.text);
      await waitFor(
        async () => webhooks().find((p) => p.channelId === sandbox.id && p.direction === 'Inbound' && p.body === 'tell me more'),
        15_000,
        'the inbound message',
      );
      const reply = await fx.a.api.post('/v1/whatsapp/service-account/sendText', {
        channelId: sandbox.id,
        toNumber: customer,
        text: 'Here you are',
      });
      assert.equal(reply.status, 200, reply.text);

      const delivered = await waitFor(
        async () => webhooks().find((p) => p.eventId === sent.body.conversationEventId && p.status === 'Delivered'),
        15_000,
        'the Delivered webhook of the template',
      );
      assert.deepEqual(delivered.pricing, { model: 'PMP', type: 'regular', category: 'marketing' });
      assert.equal(delivered.isBillable, true);
      const byCategory = await usageCounting(`channelId=${sandbox.id}&groupBy=category`, 2);
      assert.deepEqual(byCategory.totals.byCategory, { marketing: { billable: 1, free: 0 }, service: { billable: 0, free: 1 } });
    });
  },
);
