import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { approvedTemplate, createCloudChannel } from '../support/cloud-channel.js';
import { envelope, inbound } from '../support/cloud-notifications.js';
import { FakeCloudApi } from '../support/fake-cloud-api.js';
import { describeWithApp } from '../support/describe-with-app.js';
import { createChannel, waitFor, type WorkspaceFixture } from '../support/fixtures.js';
import { verifySignature, WebhookReceiver } from '../support/webhook-receiver.js';

const TOKEN = 'EAAG-consent-token';
const APP_SECRET = 'consent-app-secret';
const NO_ID = '0190f0f0-0000-7000-8000-000000000000';
const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
/** The parts of the send policy besides the words, at their defaults (API.md §13). */
const OTHER_POLICY_DEFAULTS = {
  quietHours: null,
  timezone: { fromPhoneNumber: true, property: null, default: 'Asia/Riyadh' },
  frequencyCap: null,
};
const OPTED_OUT_DETAILS = 'This recipient has chosen to stop receiving marketing messages on WhatsApp from your business.';

type Payload = Record<string, any>;
type Status = 'Unknown' | 'OptedIn' | 'OptedOut';

const SALE = approvedTemplate('spring_sale', 'MARKETING', 'Our spring sale starts today.');
const ORDER = approvedTemplate('order_ready', 'UTILITY', 'Your order is ready.');
const CODE = approvedTemplate('login_code', 'AUTHENTICATION', 'Your code is ready.');

describeWithApp(
  'Consent (API.md §13): consent routes, stop/start words, provider opt-outs, enforcement, search',
  {
    peers: {
      fake: () => FakeCloudApi.start({ acceptedTokens: [TOKEN] }),
      receiver: () => WebhookReceiver.start(),
    },
    env: ({ fake }) => ({
      WHATSAPP_GRAPH_URL: fake.url,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      RATE_LIMIT_REQUESTS_PER_MINUTE: '1000000',
    }),
  },
  (fx) => {
    let cloud: { id: string };
    let sandbox: { id: string };
    let endpointSecret: string;
    let phoneSeq = 0;

    /** A fresh phone number (Meta's digits, without +) for each scenario. */
    const nextPhone = () => `1415555${String(1000 + ++phoneSeq).padStart(4, '0')}`;
    const notify = (notification: unknown) =>
      FakeCloudApi.notify(`${fx.t.baseUrl}/v1/whatsapp/webhooks/${cloud.id}`, APP_SECRET, notification);
    /** The channel webhooks (WhatsApp Message Webhook) of the cloud channel: one per recorded inbound message. */
    const messageWebhook = (messageId: string) =>
      waitFor(
        async () => fx.receiver.at('/wa').find((r) => (JSON.parse(r.body) as Payload).messageId === messageId),
        15_000,
        `the webhook of ${messageId}`,
      );
    const sandboxWebhook = (messageId: string) =>
      waitFor(
        async () => fx.receiver.at('/wa-sandbox').find((r) => (JSON.parse(r.body) as Payload).messageId === messageId),
        15_000,
        `the sandbox webhook of ${messageId}`,
      );

    const contactByPhone = async (ws: WorkspaceFixture, digits: string): Promise<Payload | undefined> => {
      const res = await ws.api.get(`/v1/contacts?PhoneNumber=${digits}&MaxResultCount=100`);
      assert.equal(res.status, 200, res.text);
      return (res.body.items as Payload[]).find((c) => c.phoneNumber === `+${digits}`);
    };
    const consentOf = async (ws: WorkspaceFixture, contactId: string): Promise<Payload> => {
      const res = await ws.api.get(`/v1/contacts/${contactId}/consent`);
      assert.equal(res.status, 200, res.text);
      return res.body;
    };
    /** Waits until the contact of `digits` has this WhatsApp marketing status; returns its consent. */
    const marketingBecomes = (digits: string, status: Status, ws = fx.a) =>
      waitFor(
        async () => {
          const contact = await contactByPhone(ws, digits);
          if (!contact) return undefined;
          const consent = await consentOf(ws, contact.id);
          return consent.whatsAppMarketing.status === status ? { contact, consent } : undefined;
        },
        15_000,
        `+${digits} to be ${status}`,
      );
    const consentHistory = async (ws: WorkspaceFixture, contactId: string) => {
      const res = await ws.api.get(`/v1/contacts/${contactId}/history?MaxResultCount=1000`);
      assert.equal(res.status, 200, res.text);
      return (res.body.items as Payload[])
        .filter((e) => e.propertyName === 'WhatsAppMarketingConsent' || e.propertyName === 'CallConsent')
        .map((e) => [e.propertyName, e.oldValue, e.newValue])
        .reverse();
    };
    const newContact = async (ws: WorkspaceFixture, digits: string, name = `Consent ${digits}`) => {
      const res = await ws.api.post('/v1/contacts', { name, phoneNumber: `+${digits}` });
      assert.equal(res.status, 200, res.text);
      return res.body as Payload;
    };
    const putConsent = (ws: WorkspaceFixture, contactId: string, body: unknown) => ws.api.put(`/v1/contacts/${contactId}/consent`, body);
    const sendTemplate = (ws: WorkspaceFixture, channelId: string, name: string, to: Record<string, string | undefined>) =>
      ws.api.post('/v1/whatsapp/service-account/sendTemplate', { ChannelId: channelId, TemplateName: name, Language: 'en_US', ...to });
    /** Inbound text through the sandbox, as an operator injects it. */
    const sandboxText = async (digits: string, text: string) => {
      const res = await fx.t.admin.post(`/admin/v1/channels/${sandbox.id}/sandbox/inbound`, { fromNumber: digits, type: 'text', text });
      assert.equal(res.status, 202, res.text);
      return res.body.messageId as string;
    };
    /** A signed Cloud API notification carrying one inbound text; waits until it is recorded. */
    const cloudText = async (digits: string, text: string) => {
      const id = `wamid.consent.${digits}.${Math.random().toString(36).slice(2)}`;
      assert.equal(await notify(inbound({ phone: digits, name: 'Customer' }, id, { type: 'text', text: { body: text } })), 200);
      await messageWebhook(id);
      return id;
    };
    const preference = (user: { phone?: string; userId?: string }, value: 'stop' | 'resume', timestamp = Math.floor(Date.now() / 1000)) =>
      envelope(
        {
          contacts: [
            {
              profile: { name: 'Pref User' },
              ...(user.phone ? { wa_id: user.phone } : {}),
              ...(user.userId ? { user_id: user.userId } : {}),
            },
          ],
          user_preferences: [
            {
              ...(user.phone ? { wa_id: user.phone } : {}),
              ...(user.userId ? { user_id: user.userId } : {}),
              detail: value === 'stop' ? 'User requested to stop marketing messages' : 'User requested to resume marketing messages',
              category: 'marketing_messages',
              value,
              timestamp: String(timestamp),
            },
          ],
        },
        'user_preferences',
      );

    before(async () => {
      cloud = await createCloudChannel(fx.t, fx.a.workspaceId, fx.fake, {
        phoneNumberId: '106540352242922',
        accessToken: TOKEN,
        appSecret: APP_SECRET,
        webhookUrl: fx.receiver.url('/wa'),
        templates: [SALE, ORDER],
      });
      sandbox = await createChannel(fx.t, fx.a.workspaceId, { name: 'Sandbox WA', webhookUrl: fx.receiver.url('/wa-sandbox') });
      for (const definition of [SALE, ORDER, CODE]) {
        const res = await fx.t.admin.post(`/admin/v1/channels/${sandbox.id}/templates`, definition);
        assert.equal(res.status, 200, res.text);
      }
      const endpoint = await fx.a.api.post('/v1/webhook-endpoints', { url: fx.receiver.url('/endpoint'), eventTypes: ['contact.updated'] });
      assert.equal(endpoint.status, 200, endpoint.text);
      endpointSecret = endpoint.body.secret;
    });

    it('GET and PUT consent: Unknown with null at and source by default; a partial PUT; a history entry and a delivered contact.updated per change', async () => {
      const contact = await newContact(fx.a, nextPhone());
      assert.deepEqual(await consentOf(fx.a, contact.id), {
        whatsAppMarketing: { status: 'Unknown', at: null, source: null },
        calls: { status: 'Unknown', at: null, source: null },
        whatsAppCalls: { status: 'Unknown', expiresAt: null, permanent: false },
      });

      const optedIn = await putConsent(fx.a, contact.id, { whatsAppMarketing: { status: 'OptedIn' } });
      assert.equal(optedIn.status, 200, optedIn.text);
      assert.equal(optedIn.body.whatsAppMarketing.status, 'OptedIn');
      assert.equal(optedIn.body.whatsAppMarketing.source, 'Api');
      assert.match(optedIn.body.whatsAppMarketing.at, ISO_UTC);
      assert.deepEqual(optedIn.body.calls, { status: 'Unknown', at: null, source: null }, 'a part left out is unchanged');

      const dnc = await putConsent(fx.a, contact.id, { calls: { status: 'OptedOut', source: 'Import' } });
      assert.equal(dnc.status, 200, dnc.text);
      assert.deepEqual(dnc.body.whatsAppMarketing, optedIn.body.whatsAppMarketing, 'marketing kept as it was');
      assert.equal(dnc.body.calls.status, 'OptedOut');
      assert.equal(dnc.body.calls.source, 'Import');
      assert.deepEqual(await consentOf(fx.a, contact.id), dnc.body);

      // The same status again changes nothing: no history entry, the first time and source stay.
      const again = await putConsent(fx.a, contact.id, { calls: { status: 'OptedOut' } });
      assert.deepEqual(again.body, dnc.body);
      assert.deepEqual(await consentHistory(fx.a, contact.id), [
        ['WhatsAppMarketingConsent', 'Unknown', 'OptedIn'],
        ['CallConsent', 'Unknown', 'OptedOut'],
      ]);

      const events = await waitFor(
        async () => {
          const received = fx.receiver
            .at('/endpoint')
            .map((r) => verifySignature(r, endpointSecret) as Payload)
            .filter((e) => e.type === 'contact.updated' && e.data.id === contact.id);
          return received.length >= 2 ? received : undefined;
        },
        15_000,
        'two contact.updated events',
      );
      assert.deepEqual(
        events.map((e) => e.data.changes),
        [
          [{ propertyName: 'WhatsAppMarketingConsent', oldValue: 'Unknown', newValue: 'OptedIn' }],
          [{ propertyName: 'CallConsent', oldValue: 'Unknown', newValue: 'OptedOut' }],
        ],
      );

      const reset = await putConsent(fx.a, contact.id, { whatsAppMarketing: { status: 'Unknown' } });
      assert.deepEqual(reset.body.whatsAppMarketing, { status: 'Unknown', at: null, source: null });
      assert.deepEqual((await consentHistory(fx.a, contact.id)).at(-1), ['WhatsAppMarketingConsent', 'OptedIn', 'Unknown']);
    });

    it('refuses a bad status or source, null and non-objects with a 400 naming the member', async () => {
      const contact = await newContact(fx.a, nextPhone());
      const cases: Array<[unknown, string]> = [
        [{ whatsAppMarketing: { status: 'Yes' } }, 'whatsAppMarketing.status'],
        [{ calls: { status: 'optedout' } }, 'calls.status'],
        [{ calls: {} }, 'calls.status'],
        [{ whatsAppMarketing: { status: 'OptedOut', source: 'Sms' } }, 'whatsAppMarketing.source'],
        [{ whatsAppMarketing: { status: 'OptedOut', source: null } }, 'whatsAppMarketing.source'],
        [{ whatsAppMarketing: null }, 'whatsAppMarketing'],
        [{ calls: 'OptedOut' }, 'calls'],
      ];
      for (const [body, member] of cases) {
        const res = await putConsent(fx.a, contact.id, body);
        assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
        assert.equal(res.body.error.code, 'Request:ValidationFailed');
        const members = (res.body.error.validationErrors as Array<{ members: string[] }>).flatMap((e) => e.members);
        assert.ok(members.includes(member), `${JSON.stringify(body)} names ${member}: ${JSON.stringify(members)}`);
      }
      assert.deepEqual((await consentOf(fx.a, contact.id)).whatsAppMarketing.status, 'Unknown', 'nothing changed');
    });

    it("answers 404 for another workspace's contact (and an unknown one) on both consent routes; each workspace has its own send policy", async () => {
      const contact = await newContact(fx.a, nextPhone());
      for (const [ws, id] of [
        [fx.b, contact.id],
        [fx.a, NO_ID],
      ] as const) {
        const get = await ws.api.get(`/v1/contacts/${id}/consent`);
        assert.equal(get.status, 404, get.text);
        assert.equal(get.body.error.code, 'Contacts:ContactNotFound');
        const put = await putConsent(ws, id, { calls: { status: 'OptedOut' } });
        assert.equal(put.status, 404, put.text);
        assert.equal(put.body.error.code, 'Contacts:ContactNotFound');
      }
      assert.equal((await consentOf(fx.a, contact.id)).calls.status, 'Unknown', "B's PUT changed nothing");

      const own = await fx.b.api.put('/v1/send-policy', { stopWords: ['HALT'] });
      assert.equal(own.status, 200, own.text);
      assert.deepEqual((await fx.b.api.get('/v1/send-policy')).body.stopWords, ['HALT']);
      assert.deepEqual((await fx.a.api.get('/v1/send-policy')).body, {
        ...OTHER_POLICY_DEFAULTS,
        stopWords: ['STOP', 'UNSUBSCRIBE', 'إيقاف', 'الغاء'],
        startWords: ['START', 'اشتراك'],
      });
      // B's contacts do not show up in A's consent search, nor A's in B's.
      await putConsent(fx.a, contact.id, { calls: { status: 'OptedOut' } });
      const search = await fx.b.api.post('/v1/contacts/search', { consent: { calls: 'OptedOut' } });
      assert.equal(search.status, 200, search.text);
      assert.equal(search.body.totalCount, 0);
    });

    it('opts out on each default stop word and in on each start word, through signed Cloud API notifications (source Keyword)', async () => {
      for (const word of ['STOP', 'UNSUBSCRIBE', 'إيقاف', 'الغاء']) {
        const phone = nextPhone();
        await cloudText(phone, word);
        const { consent } = await marketingBecomes(phone, 'OptedOut');
        assert.equal(consent.whatsAppMarketing.source, 'Keyword', word);
        assert.match(consent.whatsAppMarketing.at, ISO_UTC);
        assert.equal(consent.calls.status, 'Unknown', `${word} leaves calls alone`);
      }
      for (const word of ['START', 'اشتراك']) {
        const phone = nextPhone();
        await cloudText(phone, 'STOP');
        await marketingBecomes(phone, 'OptedOut');
        await cloudText(phone, word);
        const { consent } = await marketingBecomes(phone, 'OptedIn');
        assert.equal(consent.whatsAppMarketing.source, 'Keyword', word);
      }
    });

    it('opts out and in the same way through sandbox inbound', async () => {
      for (const word of ['STOP', 'UNSUBSCRIBE', 'إيقاف', 'الغاء']) {
        const phone = nextPhone();
        await sandboxText(phone, word);
        const { consent } = await marketingBecomes(phone, 'OptedOut');
        assert.equal(consent.whatsAppMarketing.source, 'Keyword', word);
      }
      for (const word of ['START', 'اشتراك']) {
        const phone = nextPhone();
        await sandboxText(phone, 'stop');
        await marketingBecomes(phone, 'OptedOut');
        await sandboxText(phone, word);
        assert.equal((await marketingBecomes(phone, 'OptedIn')).consent.whatsAppMarketing.source, 'Keyword');
      }
    });

    it('compares words trimmed, spaces collapsed and case-insensitively; a sentence containing STOP does not opt out', async () => {
      for (const variant of ['  stop  ', 'Stop', '\tsToP\n', ' UnSubscribe ', ' إيقاف ', 'ايقاف', 'إلغاء']) {
        const phone = nextPhone();
        await cloudText(phone, variant);
        await marketingBecomes(phone, 'OptedOut');
      }
      const phone = nextPhone();
      for (const sentence of ['Please STOP sending me these', 'STOP!', 'stop stop', 'STOPP', 'don’t stop', 'START please']) {
        await cloudText(phone, sentence);
      }
      await sandboxWebhook(await sandboxText(phone, 'I said STOP'));
      const contact = (await contactByPhone(fx.a, phone))!;
      assert.deepEqual((await consentOf(fx.a, contact.id)).whatsAppMarketing, { status: 'Unknown', at: null, source: null });
      assert.deepEqual(await consentHistory(fx.a, contact.id), []);
    });

    it('applies a keyword once per message: a redelivered STOP after START changes nothing and records no second entry', async () => {
      const phone = nextPhone();
      const stopId = await cloudText(phone, 'STOP');
      const { contact } = await marketingBecomes(phone, 'OptedOut');
      await cloudText(phone, 'START');
      await marketingBecomes(phone, 'OptedIn');
      // Meta redelivers the STOP notification, with a new message after it in the same notification.
      const laterId = `${stopId}.later`;
      const redelivery = inbound({ phone, name: 'Customer' }, stopId, { type: 'text', text: { body: 'STOP' } });
      const value = (redelivery.entry as Payload[])[0].changes[0].value as Payload;
      // Stamped later than the START, so only recording each message once keeps the STOP from applying again.
      value.messages[0].timestamp = String(Math.floor(Date.now() / 1000) + 5);
      value.messages.push({ ...value.messages[0], id: laterId, text: { body: 'thanks' } });
      assert.equal(await notify(redelivery), 200);
      await messageWebhook(laterId);
      assert.equal((await consentOf(fx.a, contact.id)).whatsAppMarketing.status, 'OptedIn');
      assert.deepEqual(await consentHistory(fx.a, contact.id), [
        ['WhatsAppMarketingConsent', 'Unknown', 'OptedOut'],
        ['WhatsAppMarketingConsent', 'OptedOut', 'OptedIn'],
      ]);
    });

    it("applies Meta's user_preferences stop and resume (source Provider), creating an unknown user's contact; an older notification does not undo a newer one", async () => {
      const phone = nextPhone();
      assert.equal(await contactByPhone(fx.a, phone), undefined);
      assert.equal(await notify(preference({ phone }, 'stop')), 200);
      const { contact, consent } = await marketingBecomes(phone, 'OptedOut');
      assert.equal(consent.whatsAppMarketing.source, 'Provider');
      assert.equal(contact.name, 'Pref User');

      assert.equal(await notify(preference({ phone }, 'resume', Math.floor(Date.now() / 1000) + 5)), 200);
      assert.equal((await marketingBecomes(phone, 'OptedIn')).consent.whatsAppMarketing.source, 'Provider');
      // A late stop from before the resume arrives: the newer choice stands.
      assert.equal(await notify(preference({ phone }, 'stop', Math.floor(Date.now() / 1000) - 60)), 200);
      const marker = await cloudText(phone, 'hello');
      assert.ok(marker);
      assert.equal((await consentOf(fx.a, contact.id)).whatsAppMarketing.status, 'OptedIn');
      // Other categories and values are not marketing choices.
      const other = preference({ phone }, 'stop');
      ((other.entry as Payload[])[0].changes[0].value as Payload).user_preferences[0].category = 'something_else';
      assert.equal(await notify(other), 200);
      await cloudText(phone, 'hello again');
      assert.equal((await consentOf(fx.a, contact.id)).whatsAppMarketing.status, 'OptedIn');

      // The sandbox plays the same notification.
      const sandboxPhone = nextPhone();
      const injected = await fx.t.admin.post(`/admin/v1/channels/${sandbox.id}/sandbox/user-preferences`, {
        fromNumber: sandboxPhone,
        value: 'stop',
      });
      assert.equal(injected.status, 202, injected.text);
      assert.equal((await marketingBecomes(sandboxPhone, 'OptedOut')).consent.whatsAppMarketing.source, 'Provider');
      const bad = await fx.t.admin.post(`/admin/v1/channels/${sandbox.id}/sandbox/user-preferences`, {
        fromNumber: sandboxPhone,
        value: 'pause',
      });
      assert.equal(bad.status, 400, bad.text);
      const nobody = await fx.t.admin.post(`/admin/v1/channels/${sandbox.id}/sandbox/user-preferences`, { value: 'stop' });
      assert.equal(nobody.status, 400, nobody.text);
      const notSandbox = await fx.t.admin.post(`/admin/v1/channels/${cloud.id}/sandbox/user-preferences`, {
        fromNumber: sandboxPhone,
        value: 'stop',
      });
      assert.equal(notSandbox.status, 400, notSandbox.text);
    });

    it('turns error 131050 from the Cloud API (at the send, and in a failed status) into OptedOut, source Provider; the next MARKETING send is refused', async () => {
      const phone = nextPhone();
      const contact = await newContact(fx.a, phone);
      fx.fake.script.push(FakeCloudApi.marketingOptedOut());
      const sendsBefore = fx.fake.sendsTo(phone).length;
      const sent = await sendTemplate(fx.a, cloud.id, 'spring_sale', { ToNumber: phone });
      assert.equal(sent.status, 200, sent.text);
      const { consent } = await marketingBecomes(phone, 'OptedOut');
      assert.equal(consent.whatsAppMarketing.source, 'Provider');
      assert.equal(fx.fake.sendsTo(phone).length, sendsBefore + 1, 'sent once: 131050 is not retried');
      const refused = await sendTemplate(fx.a, cloud.id, 'spring_sale', { ContactId: contact.id });
      assert.equal(refused.status, 400, refused.text);
      assert.equal(refused.body.error.code, 'WhatsApp:RecipientOptedOut');
      assert.equal(fx.fake.sendsTo(phone).length, sendsBefore + 1, 'nothing more sent');
      const utility = await sendTemplate(fx.a, cloud.id, 'order_ready', { ToNumber: phone });
      assert.equal(utility.status, 200, utility.text);

      // Meta may accept the message and report 131050 in its failed status instead.
      const other = nextPhone();
      await newContact(fx.a, other);
      const accepted = await sendTemplate(fx.a, cloud.id, 'spring_sale', { ToNumber: other });
      assert.equal(accepted.status, 200, accepted.text);
      const wamid = await waitFor(
        async () => (fx.fake.sendsTo(other)[0]?.answer?.body as Payload | undefined)?.messages?.[0]?.id as string | undefined,
        10_000,
        'the send',
      );
      const failed = FakeCloudApi.status(wamid, 'failed', other, [
        {
          code: 131050,
          title: 'Unable to deliver the message.',
          message: `Unable to deliver the message. ${OPTED_OUT_DETAILS}`,
          error_data: { details: OPTED_OUT_DETAILS },
        },
      ]);
      await waitFor(
        async () => {
          assert.equal(await notify(failed), 200);
          return (await consentOf(fx.a, (await contactByPhone(fx.a, other))!.id)).whatsAppMarketing.status === 'OptedOut'
            ? true
            : undefined;
        },
        15_000,
        'the failed status to opt the contact out',
      );
    });

    it('refuses a MARKETING template to an opted-out contact (by number and by contactId) with nothing sent or written; UTILITY and AUTHENTICATION pass', async () => {
      const phone = nextPhone();
      const contact = await newContact(fx.a, phone);
      const fine = await sendTemplate(fx.a, sandbox.id, 'spring_sale', { ToNumber: phone });
      assert.equal(fine.status, 200, `Unknown receives marketing: ${fine.text}`);
      await putConsent(fx.a, contact.id, { whatsAppMarketing: { status: 'OptedOut' } });
      const timeline = async () => {
        const conversation = (
          await fx.a.api.post('/v2/conversations/service-account/create', { channelId: sandbox.id, phoneNumber: `+${phone}` })
        ).body.conversation;
        return (await fx.a.api.get(`/v2/conversations/service-account/${conversation.id}/timeline?MaxResultCount=1000`)).body
          .totalCount as number;
      };
      const eventsBefore = await timeline();
      const sandboxBefore = (await fx.t.admin.get(`/admin/v1/channels/${sandbox.id}/sandbox/messages`)).body.totalCount;
      for (const to of [{ ToNumber: phone }, { ToNumber: `+${phone}` }, { ContactId: contact.id }]) {
        const res = await sendTemplate(fx.a, sandbox.id, 'spring_sale', to);
        assert.equal(res.status, 400, `${JSON.stringify(to)}: ${res.text}`);
        assert.equal(res.body.error.code, 'WhatsApp:RecipientOptedOut');
      }
      assert.equal(await timeline(), eventsBefore, 'nothing written');
      for (const name of ['order_ready', 'login_code']) {
        const res = await sendTemplate(fx.a, sandbox.id, name, { ContactId: contact.id });
        assert.equal(res.status, 200, `${name}: ${res.text}`);
      }
      assert.equal(await timeline(), eventsBefore + 2);
      await waitFor(
        async () => (await fx.t.admin.get(`/admin/v1/channels/${sandbox.id}/sandbox/messages`)).body.totalCount >= sandboxBefore + 2,
        10_000,
        'the two sends',
      );
      const sent = (await fx.t.admin.get(`/admin/v1/channels/${sandbox.id}/sandbox/messages?MaxResultCount=100`)).body.items as Payload[];
      assert.ok(!sent.slice(0, 2).some((m) => JSON.stringify(m).includes('spring_sale')), 'no marketing template left');
      // Opted back in (a start word), marketing flows again.
      await sandboxText(phone, 'START');
      await marketingBecomes(phone, 'OptedIn');
      assert.equal((await sendTemplate(fx.a, sandbox.id, 'spring_sale', { ContactId: contact.id })).status, 200);
    });

    it('refuses Create Outbound IVR to a contact opted out of calls (the do-not-call list) with nothing created', async () => {
      const phone = nextPhone();
      const contact = await newContact(fx.a, phone);
      const call = (to: string) =>
        fx.a.api.post('/v1/outbound-ivr', {
          channelId: sandbox.id,
          destinationNumber: to,
          ttsText: 'Your appointment is tomorrow. Press 1 to confirm.',
          options: [{ digit: '1', description: 'Confirm' }],
          webhookUrl: fx.receiver.url('/ivr'),
        });
      const count = async () => (await fx.a.api.get('/v1/outbound-ivr?MaxResultCount=1')).body.totalCount as number;
      assert.equal((await putConsent(fx.a, contact.id, { calls: { status: 'OptedOut' } })).status, 200);
      const before = await count();
      for (const to of [phone, `+${phone}`]) {
        const refused = await call(to);
        assert.equal(refused.status, 400, refused.text);
        assert.equal(refused.body.error.code, 'OutboundIvr:RecipientOptedOut');
      }
      assert.equal(await count(), before, 'nothing created');
      // Marketing consent does not stop calls; opting back in to calls does.
      await putConsent(fx.a, contact.id, { whatsAppMarketing: { status: 'OptedOut' }, calls: { status: 'OptedIn' } });
      const placed = await call(phone);
      assert.equal(placed.status, 200, placed.text);
      await fx.a.api.post(`/v1/outbound-ivr/${placed.body.id}/cancel`, {});
    });

    it('takes edited stop and start words (partial PUT, null restores the defaults) and refuses bad lists', async () => {
      const put = await fx.a.api.put('/v1/send-policy', { stopWords: ['BASTA', '  stop   all  '] });
      assert.equal(put.status, 200, put.text);
      assert.deepEqual(put.body, { ...OTHER_POLICY_DEFAULTS, stopWords: ['BASTA', 'stop all'], startWords: ['START', 'اشتراك'] });
      assert.deepEqual((await fx.a.api.get('/v1/send-policy')).body, put.body);

      const notAnyMore = nextPhone();
      await cloudText(notAnyMore, 'STOP');
      const basta = nextPhone();
      await cloudText(basta, 'basta');
      await marketingBecomes(basta, 'OptedOut');
      const all = nextPhone();
      await sandboxText(all, 'STOP  ALL');
      await marketingBecomes(all, 'OptedOut');
      assert.equal(
        (await consentOf(fx.a, (await contactByPhone(fx.a, notAnyMore))!.id)).whatsAppMarketing.status,
        'Unknown',
        'STOP is no stop word now',
      );

      const starts = await fx.a.api.put('/v1/send-policy', { startWords: ['GO'] });
      assert.deepEqual(
        starts.body,
        { ...OTHER_POLICY_DEFAULTS, stopWords: ['BASTA', 'stop all'], startWords: ['GO'] },
        'a part left out is kept',
      );
      await cloudText(basta, 'go');
      await marketingBecomes(basta, 'OptedIn');

      for (const [body, member] of [
        [{ stopWords: ['X', 'x'] }, 'stopWords[1]'],
        [{ stopWords: ['   '] }, 'stopWords[0]'],
        [{ stopWords: ['a'.repeat(51)] }, 'stopWords[0]'],
        [{ startWords: ['basta'] }, 'startWords'],
        [{ stopWords: 'STOP' }, 'stopWords'],
        [{ stopWords: [1] }, 'stopWords'],
        [{ startWords: Array.from({ length: 51 }, (_, i) => `w${i}`) }, 'startWords'],
      ] as Array<[unknown, string]>) {
        const res = await fx.a.api.put('/v1/send-policy', body);
        assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
        const members = (res.body.error.validationErrors as Array<{ members: string[] }>).flatMap((e) => e.members);
        assert.ok(members.includes(member), `${JSON.stringify(body)} names ${member}: ${JSON.stringify(members)}`);
      }
      assert.deepEqual((await fx.a.api.get('/v1/send-policy')).body, starts.body, 'refused lists changed nothing');

      const restored = await fx.a.api.put('/v1/send-policy', { stopWords: null, startWords: null });
      assert.deepEqual(restored.body, {
        ...OTHER_POLICY_DEFAULTS,
        stopWords: ['STOP', 'UNSUBSCRIBE', 'إيقاف', 'الغاء'],
        startWords: ['START', 'اشتراك'],
      });
      await cloudText(notAnyMore, 'stop');
      await marketingBecomes(notAnyMore, 'OptedOut');
    });

    it('filters Search Contacts by consent, and refuses a bad status', async () => {
      const tag = `Searchable${Date.now()}`;
      const [inOut, outIn, unknown] = await Promise.all([
        newContact(fx.a, nextPhone(), `${tag} one`),
        newContact(fx.a, nextPhone(), `${tag} two`),
        newContact(fx.a, nextPhone(), `${tag} three`),
      ]);
      await putConsent(fx.a, inOut.id, { whatsAppMarketing: { status: 'OptedIn' }, calls: { status: 'OptedOut' } });
      await putConsent(fx.a, outIn.id, { whatsAppMarketing: { status: 'OptedOut' }, calls: { status: 'OptedIn' } });
      const search = async (consent: unknown) => {
        const res = await fx.a.api.post('/v1/contacts/search', { filter: tag, consent, maxResultCount: 100 });
        assert.equal(res.status, 200, res.text);
        return (res.body.items as Payload[]).map((c) => c.name as string).sort();
      };
      assert.deepEqual(await search({ whatsAppMarketing: 'OptedIn' }), [`${tag} one`]);
      assert.deepEqual(await search({ whatsAppMarketing: 'OptedOut' }), [`${tag} two`]);
      assert.deepEqual(await search({ whatsAppMarketing: 'Unknown' }), [`${tag} three`]);
      assert.deepEqual(await search({ calls: 'OptedOut' }), [`${tag} one`]);
      assert.deepEqual(await search({ calls: 'OptedIn', whatsAppMarketing: 'OptedOut' }), [`${tag} two`]);
      assert.deepEqual(await search({ calls: 'OptedIn', whatsAppMarketing: 'OptedIn' }), []);
      assert.deepEqual(await search({}), [`${tag} one`, `${tag} three`, `${tag} two`]);
      const counted = await fx.a.api.post('/v1/contacts/search', { consent: { calls: 'OptedOut' }, maxResultCount: 1 });
      assert.ok(counted.body.totalCount >= 1 && counted.body.items.length === 1, 'the total counts the matches');
      void unknown;

      for (const [consent, member] of [
        [{ whatsAppMarketing: 'Opted' }, 'consent.whatsAppMarketing'],
        [{ calls: null }, 'consent.calls'],
        ['OptedOut', 'consent'],
      ] as Array<[unknown, string]>) {
        const res = await fx.a.api.post('/v1/contacts/search', { consent });
        assert.equal(res.status, 400, `${JSON.stringify(consent)}: ${res.text}`);
        const members = (res.body.error.validationErrors as Array<{ members: string[] }>).flatMap((e) => e.members);
        assert.ok(members.includes(member), `${JSON.stringify(consent)} names ${member}: ${JSON.stringify(members)}`);
      }
    });
  },
);
