import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeWithApp } from '../support/describe-with-app.js';
import { FakeCloudApi } from '../support/fake-cloud-api.js';
import { createChannel, waitFor, type WorkspaceFixture } from '../support/fixtures.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const TOKEN = 'EAAG-campaigns-token';
const APP_SECRET = 'campaigns-app-secret';
const NO_ID = '0190f0f0-0000-7000-8000-000000000000';
const MINUTE = 60_000;

type Payload = Record<string, any>;

const PROMO = {
  name: 'promo_tier',
  language: 'en_US',
  category: 'MARKETING',
  status: 'APPROVED',
  components: [{ type: 'BODY', text: 'Hi {{1}} of {{2}}, your tier is {{3}}.' }],
};
const NEWS = {
  name: 'news_plain',
  language: 'en_US',
  category: 'MARKETING',
  status: 'APPROVED',
  components: [{ type: 'BODY', text: 'Our news of the week.' }],
};
/** PROMO's parameters: every placeholder kind of API.md §13. */
const PROMO_PARAMETERS = [
  {
    type: 'Body',
    values: [
      { type: 'text', text: '{{contact.name}}' },
      { type: 'text', text: '{{ contact.company }}' },
      { type: 'text', text: '{{property.Tier}}!' },
    ],
  },
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** `HH:MM` on the wall clock of `zone` at `at`. */
const clockIn = (at: number, zone: string) =>
  new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(at);

describeWithApp(
  'Campaigns (API.md §13): create checks, the state machine, the audience snapshot, sends once through Send Template, counts',
  {
    peers: {
      fake: async () => {
        const fake = await FakeCloudApi.start();
        fake.acceptedTokens = [TOKEN];
        return fake;
      },
      receiver: () => WebhookReceiver.start(),
    },
    env: ({ fake }) => ({
      WHATSAPP_GRAPH_URL: fake.url,
      RATE_LIMIT_REQUESTS_PER_MINUTE: '1000000',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    }),
  },
  (fx) => {
    let channelA: string;
    let channelB: string;
    let tierId: string;
    let phoneSeq = 0;
    const nextDigits = () => `1415666${String(1000 + ++phoneSeq).padStart(4, '0')}`;

    const cloudChannel = async (ws: WorkspaceFixture, phoneNumberId: string) => {
      const created = await fx.t.admin.post(`/admin/v1/workspaces/${ws.workspaceId}/channels`, {
        name: `Cloud ${phoneNumberId}`,
        type: 2,
        phoneNumber: '+14155550999',
        whatsApp: { provider: 'cloud-api', phoneNumberId, wabaId: '555', accessToken: TOKEN, appSecret: APP_SECRET, verifyToken: 'v' },
      });
      assert.equal(created.status, 200, created.text);
      fx.fake.templatePages = [{ data: [PROMO, NEWS] }];
      const synced = await fx.t.admin.post(`/admin/v1/channels/${created.body.id}/templates/sync`);
      assert.equal(synced.status, 200, synced.text);
      return created.body.id as string;
    };
    const newContact = async (ws: WorkspaceFixture, body: Payload) => {
      const res = await ws.api.post('/v1/contacts', body);
      assert.equal(res.status, 200, res.text);
      return res.body as Payload;
    };
    /** `count` contacts named `<prefix> n` with fresh numbers, in one vCard import; their ids and digits. */
    const bulkContacts = async (ws: WorkspaceFixture, prefix: string, count: number) => {
      const digits = Array.from({ length: count }, () => nextDigits());
      const vCards = digits.map((d, i) => `BEGIN:VCARD\r\nVERSION:3.0\r\nFN:${prefix} ${i}\r\nTEL:+${d}\r\nEND:VCARD`);
      const res = await ws.api.post('/v1/contacts/import/vcards', { vCards });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.createdCount, count, res.text);
      return digits;
    };
    const create = (ws: WorkspaceFixture, body: Payload) => ws.api.post('/v1/campaigns', body);
    const templateCampaign = (name: string, audience: Payload, template: Payload = { templateName: 'news_plain', language: 'en_US' }) => ({
      name,
      channelId: channelA,
      kind: 'WhatsAppTemplate',
      template,
      audience,
    });
    const created = async (ws: WorkspaceFixture, body: Payload) => {
      const res = await create(ws, body);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.status, 'Draft');
      return res.body as Payload;
    };
    const action = (ws: WorkspaceFixture, id: string, name: string) => ws.api.post(`/v1/campaigns/${id}/${name}`, {});
    const campaignOf = async (ws: WorkspaceFixture, id: string) => {
      const res = await ws.api.get(`/v1/campaigns/${id}`);
      assert.equal(res.status, 200, res.text);
      return res.body as Payload;
    };
    /** Polls the campaign until `check` holds; a timeout names the last state seen. */
    const becomes = async (ws: WorkspaceFixture, id: string, check: (c: Payload) => boolean, what: string, timeoutMs = 60_000) => {
      let last: Payload | undefined;
      try {
        return await waitFor(
          async () => {
            last = await campaignOf(ws, id);
            return check(last) ? last : undefined;
          },
          timeoutMs,
          what,
        );
      } catch (err) {
        throw new Error(`${(err as Error).message}; last seen: ${JSON.stringify(last)}`, { cause: err });
      }
    };
    const recipients = async (ws: WorkspaceFixture, id: string, query = 'MaxResultCount=1000') => {
      const res = await ws.api.get(`/v1/campaigns/${id}/recipients?${query}`);
      assert.equal(res.status, 200, res.text);
      return res.body as { totalCount: number; items: Payload[] };
    };
    const sendsTo = (digits: string[]) => digits.flatMap((d) => fx.fake.sendsTo(d));
    const assertError = (res: { status: number; body: any; text: string }, status: number, code: string) => {
      assert.equal(res.status, status, res.text);
      assert.equal(res.body.statusCode, status, res.text);
      assert.equal(res.body.error.code, code, res.text);
    };

    before(async () => {
      channelA = await cloudChannel(fx.a, '201000000000001');
      channelB = await cloudChannel(fx.b, '201000000000002');
      const tier = await fx.a.api.post('/v1/contact-property-definitions', { name: 'Tier', type: 'Text' });
      assert.equal(tier.status, 200, tier.text);
      tierId = tier.body.id;
    });

    it('Create Campaign refuses what its sends would refuse, with the error envelope: 400s, and 404 for a channel of another workspace', async () => {
      const contact = await newContact(fx.a, { name: 'Validation', phoneNumber: `+${nextDigits()}` });
      const audience = { contactIds: [contact.id] };
      const cases: Array<[Payload, number, string]> = [
        [{ ...templateCampaign('no template', audience), template: undefined }, 400, 'Campaigns:InvalidCampaign'],
        [templateCampaign('two audiences', { contactIds: [contact.id], tagIds: [NO_ID] }), 400, 'Campaigns:InvalidCampaign'],
        [templateCampaign('no audience', {}), 400, 'Campaigns:InvalidCampaign'],
        [templateCampaign('unknown template', audience, { templateName: 'nope', language: 'en_US' }), 400, 'WhatsApp:TemplateNotFound'],
        [
          templateCampaign('too few values', audience, { templateName: 'promo_tier', language: 'en_US', parameters: [] }),
          400,
          'WhatsApp:TemplateParametersMismatch',
        ],
        [
          templateCampaign('unknown property', audience, {
            templateName: 'promo_tier',
            language: 'en_US',
            parameters: [{ type: 'Body', values: ['a', 'b', '{{property.Nope}}'].map((text) => ({ type: 'text', text })) }],
          }),
          400,
          'Campaigns:InvalidCampaign',
        ],
        [{ ...templateCampaign('past', audience), scheduledAt: '2020-01-01T00:00:00Z' }, 400, 'Campaigns:InvalidCampaign'],
        [{ ...templateCampaign('bad kind', audience), kind: 'Sms' }, 400, 'Request:ValidationFailed'],
        [templateCampaign('bad ids', { contactIds: ['x'] }), 400, 'Request:ValidationFailed'],
        [
          { ...templateCampaign('redial', audience), redial: { maxAttempts: 2, on: ['Busy'], delayMinutes: 5 } },
          400,
          'Campaigns:InvalidCampaign',
        ],
        [{ ...templateCampaign('other channel', audience), channelId: channelB }, 404, 'Channels:ChannelNotFound'],
        [templateCampaign('unknown tag', { tagIds: [NO_ID] }), 404, 'Tags:TagNotFound'],
      ];
      for (const [body, status, code] of cases) {
        const res = await create(fx.a, body);
        assert.equal(res.status, status, `${body.name}: ${res.text}`);
        assert.equal(res.body.error?.code, code, `${body.name}: ${res.text}`);
      }
      const list = await fx.a.api.get('/v1/campaigns?MaxResultCount=1000');
      assert.equal(list.status, 200, list.text);
      assert.equal(list.body.items.filter((c: Payload) => c.name === 'unknown template').length, 0, 'nothing refused was saved');
    });

    it('start: every recipient sent exactly once with its own parameters; opted-out and phone-less contacts skipped; counts match the provider; then delivered, read and a reply', async () => {
      const people = [
        { name: 'Amal', company: 'Acme', tier: 'Gold' },
        { name: 'Badr', company: 'Bravo', tier: 'Silver' },
        { name: 'Chen', company: 'Corp', tier: 'Bronze' },
      ];
      const digits: string[] = [];
      const ids: string[] = [];
      for (const person of people) {
        const d = nextDigits();
        const contact = await newContact(fx.a, { name: person.name, company: person.company, phoneNumber: `+${d}` });
        const set = await fx.a.api.put(`/v1/contacts/${contact.id}/properties/${tierId}`, { value: person.tier });
        assert.equal(set.status, 200, set.text);
        digits.push(d);
        ids.push(contact.id);
      }
      const optedOutDigits = nextDigits();
      const optedOut = await newContact(fx.a, { name: 'Dana', company: 'Delta', phoneNumber: `+${optedOutDigits}` });
      assert.equal((await fx.a.api.put(`/v1/contacts/${optedOut.id}/consent`, { whatsAppMarketing: { status: 'OptedOut' } })).status, 200);
      await fx.a.api.put(`/v1/contacts/${optedOut.id}/properties/${tierId}`, { value: 'Gold' });
      const noPhone = await newContact(fx.a, { name: 'Eve', whatsAppUserId: 'US.13491208655302741918' });
      const noCompanyDigits = nextDigits();
      const noCompany = await newContact(fx.a, { name: 'Fadi', phoneNumber: `+${noCompanyDigits}` });

      const campaign = await created(
        fx.a,
        templateCampaign(
          'Tiers',
          { contactIds: [...ids, optedOut.id, noPhone.id, noCompany.id, NO_ID] },
          {
            templateName: 'promo_tier',
            language: 'en_US',
            parameters: PROMO_PARAMETERS,
          },
        ),
      );
      assert.equal(campaign.counts.total, 0, 'a Draft has no recipients yet');
      const started = await action(fx.a, campaign.id, 'start');
      assert.equal(started.status, 200, started.text);
      assert.equal(started.body.status, 'Running');
      assert.equal(started.body.counts.total, 6, 'the snapshot: the six contacts of the workspace, not the unknown id');
      assert.ok(started.body.startedAt);

      const done = await becomes(
        fx.a,
        campaign.id,
        (c) => c.status === 'Completed' && c.counts.sent === 3,
        'the campaign to complete with 3 sent',
      );
      assert.ok(done.completedAt);
      assert.deepEqual(
        done.counts,
        {
          total: 6,
          pending: 0,
          sent: 3,
          delivered: 0,
          read: 0,
          replied: 0,
          failed: 1,
          skippedOptedOut: 1,
          skippedNoPhone: 1,
          scheduledQuietHours: 0,
          answered: 0,
          digitPressed: 0,
        },
        'counts',
      );
      people.forEach((person, i) => {
        const sends = fx.fake.sendsTo(digits[i]);
        assert.equal(sends.length, 1, `${person.name} got exactly one message`);
        const body = sends[0].body as Payload;
        assert.equal(body.template.name, 'promo_tier');
        assert.deepEqual(
          body.template.components[0].parameters.map((p: Payload) => p.text),
          [person.name, person.company, `${person.tier}!`],
          `${person.name}'s own parameters`,
        );
      });
      assert.equal(fx.fake.sendsTo(optedOutDigits).length, 0, 'nothing to the opted-out contact');
      assert.equal(fx.fake.sendsTo(noCompanyDigits).length, 0, 'nothing to a contact lacking a placeholder value');

      const all = await recipients(fx.a, campaign.id);
      const byContact = new Map(all.items.map((r) => [r.contactId, r]));
      assert.equal(all.totalCount, 6);
      for (const id of ids) {
        assert.equal(byContact.get(id)?.status, 'Sent');
        assert.match(byContact.get(id)?.conversationEventId, /^[0-9a-f-]{36}$/);
      }
      assert.equal(byContact.get(optedOut.id)?.status, 'SkippedOptedOut');
      assert.equal(byContact.get(optedOut.id)?.conversationEventId, null);
      assert.equal(byContact.get(noPhone.id)?.status, 'SkippedNoPhone');
      assert.equal(byContact.get(noPhone.id)?.phoneNumber, null);
      assert.deepEqual(
        [byContact.get(noCompany.id)?.status, byContact.get(noCompany.id)?.errorCode],
        ['Failed', 'Campaigns:EmptyPlaceholder'],
      );

      // The provider's statuses and a reply move the recipients and the counts.
      const wamid = (d: string) => (fx.fake.sendsTo(d)[0].answer!.body as Payload).messages[0].id as string;
      const notify = (notification: unknown) =>
        FakeCloudApi.notify(`${fx.t.baseUrl}/v1/whatsapp/webhooks/${channelA}`, APP_SECRET, notification);
      assert.equal(await notify(FakeCloudApi.status(wamid(digits[0]), 'delivered', digits[0])), 200);
      assert.equal(await notify(FakeCloudApi.status(wamid(digits[1]), 'delivered', digits[1])), 200);
      assert.equal(await notify(FakeCloudApi.status(wamid(digits[1]), 'read', digits[1])), 200);
      assert.equal(await notify(FakeCloudApi.inboundText(digits[2], `wamid.reply.${digits[2]}`, 'Interested!')), 200);
      const after = await becomes(
        fx.a,
        campaign.id,
        (c) => c.counts.delivered === 2 && c.counts.read === 1 && c.counts.replied === 1,
        'delivered 2, read 1, replied 1',
        30_000,
      );
      assert.equal(after.counts.sent, 3, 'sent counts every message that left (a funnel: delivered and read ones too)');
      const shown = new Map((await recipients(fx.a, campaign.id)).items.map((r) => [r.contactId, r.status]));
      assert.deepEqual(
        ids.map((id) => shown.get(id)),
        ['Delivered', 'Read', 'Replied'],
      );
      const replied = await recipients(fx.a, campaign.id, 'Status=Replied');
      assert.deepEqual(
        replied.items.map((r) => r.contactId),
        [ids[2]],
      );

      // Paging: pages of 2 cover the six recipients once, in a stable order.
      const seen: string[] = [];
      for (let skip = 0; skip < 6; skip += 2) {
        const page = await recipients(fx.a, campaign.id, `SkipCount=${skip}&MaxResultCount=2`);
        assert.equal(page.totalCount, 6);
        assert.equal(page.items.length, 2);
        seen.push(...page.items.map((r) => r.contactId));
      }
      assert.equal(new Set(seen).size, 6);
      const past = await recipients(fx.a, campaign.id, 'SkipCount=10&MaxResultCount=2');
      assert.deepEqual(past, { totalCount: 6, items: [] });
      assert.equal((await fx.a.api.get(`/v1/campaigns/${campaign.id}/recipients?Status=Nope`)).status, 400);
      assert.equal((await fx.a.api.get(`/v1/campaigns/${campaign.id}/recipients?MaxResultCount=1001`)).status, 400);
    });

    it('a tag audience reaches the contacts with a conversation carrying the tag, and no one else', async () => {
      const tag = await fx.a.api.post('/v1/tags/service-account', { name: 'Campaign VIP' });
      assert.equal(tag.status, 200, tag.text);
      const [vip, other] = [nextDigits(), nextDigits()];
      for (const [digits, tagged] of [
        [vip, true],
        [other, false],
      ] as const) {
        const conversation = await fx.a.api.post('/v2/conversations/service-account/create', {
          channelId: channelA,
          phoneNumber: `+${digits}`,
          contactName: `Tagged ${digits}`,
        });
        assert.equal(conversation.status, 200, conversation.text);
        if (tagged) {
          const tagging = await fx.a.api.post(`/v2/conversations/service-account/${conversation.body.conversation.id}/tags`, {
            tagIds: [tag.body.id],
          });
          assert.equal(tagging.status, 200, tagging.text);
        }
      }
      const campaign = await created(fx.a, templateCampaign('VIPs', { tagIds: [tag.body.id] }));
      assert.equal((await action(fx.a, campaign.id, 'start')).status, 200);
      const done = await becomes(fx.a, campaign.id, (c) => c.status === 'Completed', 'completed');
      assert.equal(done.counts.total, 1);
      await waitFor(async () => fx.fake.sendsTo(vip).length === 1, 15_000, 'the tagged contact to get the message');
      assert.equal(fx.fake.sendsTo(other).length, 0);
    });

    it('a search audience (Search Contacts criteria) is snapshotted at start: contacts made later are not in it', async () => {
      const digits = await bulkContacts(fx.a, 'Snapshot', 5);
      await newContact(fx.a, { name: 'Other person', phoneNumber: `+${nextDigits()}` });
      const campaign = await created(fx.a, templateCampaign('Snapshot', { search: { filter: 'Snapshot' } }));
      assert.equal((await action(fx.a, campaign.id, 'start')).status, 200);
      const late = nextDigits();
      await newContact(fx.a, { name: 'Snapshot late', phoneNumber: `+${late}` });
      const done = await becomes(fx.a, campaign.id, (c) => c.status === 'Completed', 'completed');
      assert.equal(done.counts.total, 5);
      assert.equal(done.counts.sent, 5);
      assert.deepEqual(
        digits.map((d) => fx.fake.sendsTo(d).length),
        [1, 1, 1, 1, 1],
      );
      assert.equal(fx.fake.sendsTo(late).length, 0);
    });

    it('pause stops new sends (none while paused), resume goes on, and every recipient gets exactly one message', async () => {
      const digits = await bulkContacts(fx.a, 'Pausable', 400);
      const campaign = await created(fx.a, templateCampaign('Pausable', { search: { filter: 'Pausable' } }));
      assert.equal((await action(fx.a, campaign.id, 'start')).status, 200);
      await waitFor(async () => (await campaignOf(fx.a, campaign.id)).counts.pending < 390, 30_000, 'sending to begin');
      const paused = await action(fx.a, campaign.id, 'pause');
      assert.equal(paused.status, 200, paused.text);
      assert.equal(paused.body.status, 'Paused');
      assert.equal(paused.body.pausedReason, 'Manual');
      // A recipient is sent when it is linked to its send (counts.pending also holds sends accepted before the pause and
      // still queued for the provider, which leave while paused).
      const linkedCount = async () => (await recipients(fx.a, campaign.id)).items.filter((r) => r.conversationEventId !== null).length;
      const linkedAtPause = await linkedCount();
      assert.ok(linkedAtPause < 400, `still unsent when paused: ${linkedAtPause} of 400 sent`);
      await sleep(2500);
      assert.equal(await linkedCount(), linkedAtPause, 'no recipient sent while paused');
      const providerWhilePaused = sendsTo(digits).length;
      assert.ok(providerWhilePaused <= linkedAtPause, 'the provider got only what was accepted before the pause');

      const resumed = await action(fx.a, campaign.id, 'resume');
      assert.equal(resumed.status, 200, resumed.text);
      assert.equal(resumed.body.status, 'Running');
      assert.equal(resumed.body.pausedReason, null);
      const done = await becomes(fx.a, campaign.id, (c) => c.status === 'Completed' && c.counts.sent === 400, 'all 400 sent', 180_000);
      assert.equal(done.counts.total, 400);
      await waitFor(async () => sendsTo(digits).length >= 400, 30_000, 'the provider to get 400');
      await sleep(500);
      assert.deepEqual([...new Set(digits.map((d) => fx.fake.sendsTo(d).length))], [1], 'each recipient got exactly one message');
    });

    it("the channel's messaging limit pauses a campaign (MessagingLimitReached) with the rest Pending; none of them reaches the provider", async () => {
      const limited = await cloudChannel(fx.a, '201000000000003');
      const limits = await fx.t.admin.put(`/admin/v1/channels/${limited}/limits`, { messagingLimit: 250 });
      assert.equal(limits.status, 200, limits.text);
      const digits = await bulkContacts(fx.a, 'Limited', 260);
      const campaign = await created(fx.a, { ...templateCampaign('Limited', { search: { filter: 'Limited' } }), channelId: limited });
      assert.equal((await action(fx.a, campaign.id, 'start')).status, 200);
      // The 250 sends accepted before the pause still leave from the worker's queue; the counts are read once they have.
      const paused = await becomes(
        fx.a,
        campaign.id,
        (c) => c.status === 'Paused' && c.counts.sent + c.counts.failed === 250,
        'the campaign paused by the limit, its accepted sends gone to the provider',
        120_000,
      );
      assert.equal(paused.pausedReason, 'MessagingLimitReached');
      assert.equal(paused.counts.total, 260);
      assert.equal(paused.counts.pending, 10, JSON.stringify(paused.counts));
      assert.equal(paused.counts.sent + paused.counts.failed, 250, JSON.stringify(paused.counts));
      const usage = await fx.a.api.get(`/v1/channels/${limited}/limits`);
      assert.equal(usage.body.uniqueRecipients24h, 250, usage.text);
      assert.equal(usage.body.remaining24h, 0, usage.text);
      await waitFor(async () => sendsTo(digits).length >= 250, 30_000, 'the provider to get 250');
      await sleep(500);
      assert.equal(sendsTo(digits).length, 250, 'the ten over the limit never left');
    });

    it('cancel: a Running campaign ends Cancelled; what was sent stays sent, the rest is Cancelled and never sent', async () => {
      const digits = await bulkContacts(fx.a, 'Cancellable', 300);
      const campaign = await created(fx.a, templateCampaign('Cancellable', { search: { filter: 'Cancellable' } }));
      assert.equal((await action(fx.a, campaign.id, 'start')).status, 200);
      await waitFor(async () => (await campaignOf(fx.a, campaign.id)).counts.pending < 295, 30_000, 'sending to begin');
      const cancelled = await action(fx.a, campaign.id, 'cancel');
      assert.equal(cancelled.status, 200, cancelled.text);
      assert.equal(cancelled.body.status, 'Cancelled');
      assert.ok(cancelled.body.completedAt);
      await sleep(2000);
      const rows = await recipients(fx.a, campaign.id);
      const cancelledRows = rows.items.filter((r) => r.status === 'Cancelled');
      const linked = rows.items.filter((r) => r.conversationEventId !== null);
      assert.ok(cancelledRows.length > 0, 'some were still pending');
      assert.equal(cancelledRows.length + linked.length, 300, 'every recipient was either sent or cancelled');
      assert.equal((await recipients(fx.a, campaign.id, 'Status=Cancelled&MaxResultCount=1')).totalCount, cancelledRows.length);
      const byContact = new Map(rows.items.map((r) => [r.contactId, r]));
      await sleep(1000);
      for (const row of cancelledRows)
        assert.equal(fx.fake.sendsTo(row.phoneNumber.slice(1)).length, 0, 'a cancelled recipient got nothing');
      assert.ok(sendsTo(digits).length <= linked.length);
      assert.equal(byContact.size, 300);
      const still = await campaignOf(fx.a, campaign.id);
      assert.equal(still.status, 'Cancelled');
      assert.equal(still.counts.pending, 0);
    });

    it('illegal moves of the state machine are 409s with the envelope; a Draft can be cancelled', async () => {
      const contact = await newContact(fx.a, { name: 'Machine', phoneNumber: `+${nextDigits()}` });
      const draft = await created(fx.a, templateCampaign('Machine', { contactIds: [contact.id] }));
      assertError(await action(fx.a, draft.id, 'pause'), 409, 'Campaigns:IllegalTransition');
      assertError(await action(fx.a, draft.id, 'resume'), 409, 'Campaigns:IllegalTransition');
      const cancelled = await action(fx.a, draft.id, 'cancel');
      assert.equal(cancelled.status, 200, cancelled.text);
      assert.equal(cancelled.body.status, 'Cancelled');
      for (const name of ['start', 'pause', 'resume', 'cancel'])
        assertError(await action(fx.a, draft.id, name), 409, 'Campaigns:IllegalTransition');

      const other = await created(fx.a, templateCampaign('Machine 2', { contactIds: [contact.id] }));
      assert.equal((await action(fx.a, other.id, 'start')).status, 200);
      assertError(await action(fx.a, other.id, 'start'), 409, 'Campaigns:IllegalTransition');
      await becomes(fx.a, other.id, (c) => c.status === 'Completed', 'completed');
      for (const name of ['start', 'pause', 'resume', 'cancel'])
        assertError(await action(fx.a, other.id, name), 409, 'Campaigns:IllegalTransition');
    });

    it('a campaign with scheduledAt ahead is Scheduled at start, sends nothing before then, can be paused and resumed (Scheduled again), and cancelled', async () => {
      const d = nextDigits();
      const contact = await newContact(fx.a, { name: 'Later', phoneNumber: `+${d}` });
      const scheduledAt = new Date(Date.now() + 60 * MINUTE).toISOString();
      const campaign = await created(fx.a, { ...templateCampaign('Later', { contactIds: [contact.id] }), scheduledAt });
      assert.equal(campaign.scheduledAt, scheduledAt);
      const started = await action(fx.a, campaign.id, 'start');
      assert.equal(started.status, 200, started.text);
      assert.equal(started.body.status, 'Scheduled');
      assert.equal(started.body.startedAt, null);
      assert.equal(started.body.counts.pending, 1);
      const held = await action(fx.a, campaign.id, 'pause');
      assert.equal(held.body.status, 'Paused', held.text);
      const again = await action(fx.a, campaign.id, 'resume');
      assert.equal(again.body.status, 'Scheduled', 'resumed before its time, it waits for it again');
      assert.equal(again.body.startedAt, null);
      await sleep(1500);
      assert.equal(fx.fake.sendsTo(d).length, 0);
      const cancelled = await action(fx.a, campaign.id, 'cancel');
      assert.equal(cancelled.body.status, 'Cancelled');
      assert.equal((await recipients(fx.a, campaign.id)).items[0].status, 'Cancelled');
    });

    it("quiet hours hold a campaign's marketing sends (Scheduled, counted as scheduledQuietHours); cancelling cancels them before they leave", async () => {
      const zone = 'America/New_York'; // a +1 number's zone (a country of several zones takes its capital's)
      const minute = Math.floor(Date.now() / MINUTE) * MINUTE;
      const policy = await fx.b.api.put('/v1/send-policy', {
        quietHours: { start: clockIn(minute - 30 * MINUTE, zone), end: clockIn(minute + 90 * MINUTE, zone), appliesTo: ['Marketing'] },
      });
      assert.equal(policy.status, 200, policy.text);
      const d = nextDigits();
      const contact = await newContact(fx.b, { name: 'Sleeping', phoneNumber: `+${d}` });
      const res = await create(fx.b, { ...templateCampaign('Night', { contactIds: [contact.id] }), channelId: channelB });
      assert.equal(res.status, 200, res.text);
      assert.equal((await action(fx.b, res.body.id, 'start')).status, 200);
      const waiting = await becomes(
        fx.b,
        res.body.id,
        (c) => c.counts.scheduledQuietHours === 1,
        'the send to wait out quiet hours',
        30_000,
      );
      assert.equal(waiting.status, 'Running', 'a campaign with sends waiting is not Completed yet');
      const [row] = (await recipients(fx.b, res.body.id)).items;
      assert.equal(row.status, 'Scheduled');
      assert.ok(row.conversationEventId);
      const cancelled = await action(fx.b, res.body.id, 'cancel');
      assert.equal(cancelled.status, 200, cancelled.text);
      assert.equal((await recipients(fx.b, res.body.id)).items[0].status, 'Cancelled', 'its waiting send was cancelled');
      assert.equal(fx.fake.sendsTo(d).length, 0);
      assert.equal((await fx.b.api.put('/v1/send-policy', { quietHours: null })).status, 200);
    });

    it("every route answers 404 for another workspace's campaign and for a malformed id; lists show only the workspace's own", async () => {
      const contact = await newContact(fx.a, { name: 'Private', phoneNumber: `+${nextDigits()}` });
      const campaign = await created(fx.a, templateCampaign('Private', { contactIds: [contact.id] }));
      for (const id of [campaign.id, NO_ID, 'not-a-uuid']) {
        const routes = [
          () => fx.b.api.get(`/v1/campaigns/${id}`),
          () => fx.b.api.get(`/v1/campaigns/${id}/recipients`),
          ...['start', 'pause', 'resume', 'cancel'].map((name) => () => action(fx.b, id, name)),
        ];
        for (const route of routes) {
          const res = await route();
          assert.equal(res.status, 404, res.text);
          assert.equal(res.body.statusCode, 404);
          assert.match(res.body.error.code, /^Campaigns:/);
        }
      }
      assert.equal((await campaignOf(fx.a, campaign.id)).status, 'Draft', "B's calls changed nothing");
      const listB = await fx.b.api.get('/v1/campaigns?MaxResultCount=1000');
      assert.equal(listB.status, 200, listB.text);
      assert.ok(!listB.body.items.some((c: Payload) => c.id === campaign.id));
      const listA = await fx.a.api.get('/v1/campaigns?Status=Draft&MaxResultCount=1');
      assert.equal(listA.status, 200, listA.text);
      assert.equal(listA.body.items.length, 1);
      assert.ok(listA.body.totalCount >= 1);
      assert.ok(listA.body.items.every((c: Payload) => c.status === 'Draft'));
      assert.equal((await fx.a.api.get('/v1/campaigns?Status=Nope')).status, 400);
      // A campaign cannot reach another workspace's contacts: B's ids match nothing in A.
      const foreign = await newContact(fx.b, { name: 'Foreign', phoneNumber: `+${nextDigits()}` });
      const cross = await created(fx.a, templateCampaign('Cross', { contactIds: [foreign.id] }));
      const started = await action(fx.a, cross.id, 'start');
      assert.equal(started.body.counts.total, 0);
    });

    /** A voice-only sandbox channel of A whose calls end as `sandbox` says, at once. */
    const voiceChannel = async (sandbox: Payload) =>
      (
        await createChannel(fx.t, fx.a.workspaceId, {
          name: `Voice ${++phoneSeq}`,
          type: 1,
          whatsApp: undefined,
          voice: { provider: 'sandbox', fromNumber: '+14155550100', sandbox: { ringMs: 0, talkMs: 0, ...sandbox } },
        })
      ).id as string;
    const ivrBody = () => ({
      audioFileUrl: 'https://media.example.com/question.wav',
      options: [{ digit: '1', description: 'Confirm' }],
      webhookUrl: fx.receiver.url('/ivr'),
      maxAudioRetries: 0,
    });
    /** The calls a campaign placed, by the externalId it gives them (`campaign:<id>:<contactId>:<attempt>`). */
    const callsOf = async (campaignId: string) => {
      const res = await fx.a.api.get('/v1/outbound-ivr?MaxResultCount=1000');
      assert.equal(res.status, 200, res.text);
      return (res.body.items as Payload[]).filter((c) => String(c.externalId).startsWith(`campaign:${campaignId}:`));
    };

    it('IVR campaign: a call per recipient through Create Outbound IVR, Completed with the digit counted; a contact opted out of calls is skipped; create checks', async () => {
      const channel = await voiceChannel({ answer: true, pressDigits: ['1'] });
      const numbers = [nextDigits(), nextDigits()];
      const ids = [];
      for (const d of numbers) ids.push((await newContact(fx.a, { name: `Caller ${d}`, phoneNumber: `+${d}` })).id as string);
      const dnc = await newContact(fx.a, { name: 'Do not call', phoneNumber: `+${nextDigits()}` });
      assert.equal((await fx.a.api.put(`/v1/contacts/${dnc.id}/consent`, { calls: { status: 'OptedOut' } })).status, 200);
      const body = {
        name: 'Confirmations',
        channelId: channel,
        kind: 'OutboundIvr',
        ivr: ivrBody(),
        audience: { contactIds: [...ids, dnc.id] },
      };

      assertError(await create(fx.a, { ...body, ivr: undefined }), 400, 'Campaigns:InvalidCampaign');
      assertError(await create(fx.a, { ...body, ivr: { ...ivrBody(), ttsText: 'Also this' } }), 400, 'OutboundIvr:InvalidRequest');
      assertError(
        await create(fx.a, { ...body, ivr: { ...ivrBody(), options: [{ digit: 'x', description: 'Bad' }] } }),
        400,
        'Request:ValidationFailed',
      );
      assertError(
        await create(fx.a, { ...body, redial: { maxAttempts: 6, on: ['Busy'], delayMinutes: 0 } }),
        400,
        'Request:ValidationFailed',
      );
      assertError(await create(fx.a, { ...body, channelId: channelA }), 404, 'Channels:ChannelNotFound');

      const campaign = await created(fx.a, body);
      assert.equal((await action(fx.a, campaign.id, 'start')).status, 200);
      const done = await becomes(fx.a, campaign.id, (c) => c.status === 'Completed', 'the call list to complete');
      assert.equal(done.counts.total, 3);
      assert.equal(done.counts.sent, 2, 'two calls placed');
      assert.equal(done.counts.answered, 2);
      assert.equal(done.counts.digitPressed, 2);
      assert.equal(done.counts.skippedOptedOut, 1);
      const calls = await callsOf(campaign.id);
      assert.deepEqual(
        calls.map((c) => c.destinationNumber).sort(),
        numbers.map((d) => `+${d}`).sort(),
        'one call to each, none to the opted-out',
      );
      const shown = new Map((await recipients(fx.a, campaign.id)).items.map((r) => [r.contactId, r]));
      for (const id of ids) {
        assert.equal(shown.get(id)?.status, 'Completed');
        assert.ok(calls.some((c) => c.id === shown.get(id)?.outboundIvrId));
      }
      assert.equal(shown.get(dnc.id)?.status, 'SkippedOptedOut');
    });

    it('IVR campaign on a phone line: a contact known only by its BSUID is SkippedNoPhone with the reason (a phone line needs a number); the others are called', async () => {
      const channel = await voiceChannel({ answer: true, pressDigits: ['1'] });
      const digits = nextDigits();
      const numbered = await newContact(fx.a, { name: `Numbered ${digits}`, phoneNumber: `+${digits}` });
      const bsuid = 'SA.8800112233445566';
      const usernameOnly = await newContact(fx.a, { name: 'Username only', whatsAppUserId: bsuid });
      const campaign = await created(fx.a, {
        name: 'Phone line, BSUID contact',
        channelId: channel,
        kind: 'OutboundIvr',
        ivr: ivrBody(),
        audience: { contactIds: [numbered.id, usernameOnly.id] },
      });
      const started = await action(fx.a, campaign.id, 'start');
      assert.equal(started.status, 200, started.text);
      assert.equal(started.body.counts.skippedNoPhone, 1, 'skipped at the snapshot');
      const done = await becomes(fx.a, campaign.id, (c) => c.status === 'Completed', 'the call list to complete');
      assert.equal(done.counts.total, 2);
      assert.equal(done.counts.sent, 1);
      assert.equal(done.counts.skippedNoPhone, 1);
      const shown = new Map((await recipients(fx.a, campaign.id)).items.map((r) => [r.contactId, r]));
      assert.deepEqual(
        (({ status, phoneNumber, whatsAppUserId, errorCode, outboundIvrId }) => ({
          status,
          phoneNumber,
          whatsAppUserId,
          errorCode,
          outboundIvrId,
        }))(shown.get(usernameOnly.id)!),
        {
          status: 'SkippedNoPhone',
          phoneNumber: null,
          whatsAppUserId: bsuid,
          errorCode: 'OutboundIvr:PhoneNumberRequired',
          outboundIvrId: null,
        },
      );
      assert.equal(shown.get(numbered.id)?.status, 'Completed');
      assert.deepEqual(
        (await callsOf(campaign.id)).map((c) => c.destinationNumber),
        [`+${digits}`],
        'one call, to the number',
      );
    });

    it('IVR campaign with a redial policy: busy lines are called again up to maxAttempts, then end Busy', async () => {
      const channel = await voiceChannel({ answer: 'busy' });
      const numbers = [nextDigits(), nextDigits()];
      const ids = [];
      for (const d of numbers) ids.push((await newContact(fx.a, { name: `Busy ${d}`, phoneNumber: `+${d}` })).id as string);
      const campaign = await created(fx.a, {
        name: 'Redials',
        channelId: channel,
        kind: 'OutboundIvr',
        ivr: ivrBody(),
        audience: { contactIds: ids },
        redial: { maxAttempts: 3, on: ['Busy', 'NoAnswer'], delayMinutes: 0 },
      });
      assert.equal((await action(fx.a, campaign.id, 'start')).status, 200);
      const done = await becomes(fx.a, campaign.id, (c) => c.status === 'Completed', 'the redials to run out', 90_000);
      assert.equal(done.counts.answered, 0);
      const calls = await callsOf(campaign.id);
      assert.equal(calls.length, 6, 'three calls to each of the two');
      for (const id of ids)
        assert.deepEqual(
          calls
            .filter((c) => c.externalId.includes(id))
            .map((c) => [c.externalId.split(':')[3], c.status])
            .sort(),
          [
            ['1', 6],
            ['2', 6],
            ['3', 6],
          ],
          'attempts 1 to 3, each Busy',
        );
      const shown = (await recipients(fx.a, campaign.id)).items;
      assert.deepEqual(
        shown.map((r) => r.status),
        ['Busy', 'Busy'],
      );
      assert.equal((await recipients(fx.a, campaign.id, 'Status=Busy')).totalCount, 2);
    });

    it('IVR campaign with machine detection: answering machines get the voicemail and are redialled when redial.on has AnsweringMachine', async () => {
      const channel = await voiceChannel({ answer: true, pressDigits: ['1'] });
      const [machine, person] = [nextDigits(), nextDigits()];
      const marked = await fx.t.admin.put(`/admin/v1/channels/${channel}/sandbox/machines`, { numbers: [machine] });
      assert.equal(marked.status, 200, marked.text);
      const ids = [
        (await newContact(fx.a, { name: `Machine ${machine}`, phoneNumber: `+${machine}` })).id as string,
        (await newContact(fx.a, { name: `Person ${person}`, phoneNumber: `+${person}` })).id as string,
      ];
      const body = {
        name: 'Reminders',
        channelId: channel,
        kind: 'OutboundIvr',
        ivr: { ...ivrBody(), machineDetection: 'LeaveMessage', voicemailAudioFileUrl: 'https://media.example.com/voicemail.wav' },
        audience: { contactIds: ids },
        redial: { maxAttempts: 2, on: ['AnsweringMachine'], delayMinutes: 0 },
      };
      assertError(await create(fx.a, { ...body, redial: { ...body.redial, on: ['Voicemail'] } }), 400, 'Request:ValidationFailed');
      assertError(
        await create(fx.a, { ...body, ivr: { ...body.ivr, voicemailAudioFileUrl: undefined } }),
        400,
        'OutboundIvr:InvalidRequest',
      );
      assertError(await create(fx.a, { ...body, ivr: { ...body.ivr, machineDetection: 'Sometimes' } }), 400, 'Request:ValidationFailed');

      const campaign = await created(fx.a, body);
      assert.equal((await action(fx.a, campaign.id, 'start')).status, 200);
      const done = await becomes(fx.a, campaign.id, (c) => c.status === 'Completed', 'the machine redials to run out', 90_000);
      assert.equal(done.counts.sent, 2);
      assert.equal(done.counts.answered, 1, 'only the person counts as answered');
      assert.equal(done.counts.digitPressed, 1);
      const calls = await callsOf(campaign.id);
      const toMachine = calls.filter((c) => c.destinationNumber === `+${machine}`);
      assert.deepEqual(
        toMachine.map((c) => [c.externalId.split(':')[3], c.status, c.result, c.answeredBy, c.machineDetection]).sort(),
        [
          ['1', 4, 8, 'machine_end_beep', 'LeaveMessage'],
          ['2', 4, 8, 'machine_end_beep', 'LeaveMessage'],
        ],
        'the machine was called twice, each call ending AnsweringMachine',
      );
      const toPerson = calls.filter((c) => c.destinationNumber === `+${person}`);
      assert.deepEqual(
        toPerson.map((c) => [c.status, c.result, c.answeredBy]),
        [[4, 1, 'human']],
        'a person who pressed a digit is not redialled',
      );
    });

    it('IVR campaign without AnsweringMachine in redial.on: a machine is called once', async () => {
      const channel = await voiceChannel({ answer: true });
      const machine = nextDigits();
      assert.equal((await fx.t.admin.put(`/admin/v1/channels/${channel}/sandbox/machines`, { numbers: [machine] })).status, 200);
      const id = (await newContact(fx.a, { name: `Machine ${machine}`, phoneNumber: `+${machine}` })).id as string;
      const campaign = await created(fx.a, {
        name: 'No machine redials',
        channelId: channel,
        kind: 'OutboundIvr',
        ivr: { ...ivrBody(), machineDetection: 'Hangup' },
        audience: { contactIds: [id] },
        redial: { maxAttempts: 3, on: ['Busy', 'NoAnswer'], delayMinutes: 0 },
      });
      assert.equal((await action(fx.a, campaign.id, 'start')).status, 200);
      await becomes(fx.a, campaign.id, (c) => c.status === 'Completed', 'the call list to complete', 90_000);
      const calls = await callsOf(campaign.id);
      assert.deepEqual(
        calls.map((c) => [c.status, c.result, c.answeredBy]),
        [[4, 8, 'machine_start']],
      );
    });
  },
);
