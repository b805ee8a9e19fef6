import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { Client } from 'pg';
import { describeWithApp } from '../support/describe-with-app.js';
import { FakeCloudApi } from '../support/fake-cloud-api.js';
import { createChannel, waitFor, type WorkspaceFixture } from '../support/fixtures.js';
import { quietAroundNow } from '../support/quiet-hours.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const TOKEN = 'EAAG-lifecycle-token';
const APP_SECRET = 'lifecycle-app-secret';

type Payload = Record<string, any>;

const WELCOME = (name: string, category = 'UTILITY') => ({
  name,
  language: 'en_US',
  category,
  components: [
    { type: 'BODY', text: 'Hi {{1}}, your account is ready.', example: { body_text: [['Sara']] } },
    { type: 'FOOTER', text: 'Reply STOP to opt out' },
  ],
});

describeWithApp(
  'Templates managed here and their lifecycle by webhook (API.md §14)',
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
    let cloud: string;
    let phoneSeq = 0;
    const nextPhone = () => `+1415777${String(1000 + ++phoneSeq).padStart(4, '0')}`;

    const notify = async (notification: unknown) => {
      const status = await FakeCloudApi.notify(`${fx.t.baseUrl}/v1/whatsapp/webhooks/${cloud}`, APP_SECRET, notification);
      assert.equal(status, 200);
    };
    const listed = async (ws: WorkspaceFixture, query: string) => {
      const res = await ws.api.get(`/v1/whatsapp/templates?${query}`);
      assert.equal(res.status, 200, res.text);
      return res.body.items as Payload[];
    };
    const templateOf = async (name: string) => (await listed(fx.a, `channelId=${cloud}&Name=${name}`)).find((t) => t.name === name);
    const create = async (body: Payload, channelId = cloud) => {
      const res = await fx.a.api.post('/v1/whatsapp/templates', { channelId, ...body });
      assert.equal(res.status, 200, res.text);
      return res.body as Payload;
    };
    const metaTemplate = (name: string) => {
      const held = fx.fake.createdTemplates.find((t) => t.name === name);
      assert.ok(held, `the WhatsApp Business Account holds ${name}`);
      return held;
    };
    /** A template created here, then approved by Meta's webhook; Meta's copy of it. */
    const approved = async (name: string) => {
      await create(WELCOME(name));
      const meta = metaTemplate(name);
      await notify(FakeCloudApi.templateStatusUpdate(meta, 'APPROVED'));
      await waitFor(async () => (await templateOf(name))?.status === 'APPROVED', 10_000, 'the approval');
      return meta;
    };
    const sendTemplate = (name: string, toNumber: string) =>
      fx.a.api.post('/v1/whatsapp/service-account/sendTemplate', {
        channelId: cloud,
        templateName: name,
        language: 'en_US',
        toNumber,
        parameters: [{ type: 'Body', values: [{ type: 'text', text: 'Sara' }] }],
      });
    const templateEvents = (name: string) =>
      fx.receiver
        .at('/templates')
        .map((r) => JSON.parse(r.body) as Payload)
        .filter((e) => e.type === 'whatsapp.template_updated' && e.data.name === name);

    /** Another cloud-api channel on the WhatsApp Business Account 555, in `workspaceId`. */
    const channelOnAccount555 = async (workspaceId: string, name: string, phoneNumber: string, phoneNumberId: string) => {
      const created = await fx.t.admin.post(`/admin/v1/workspaces/${workspaceId}/channels`, {
        name,
        type: 2,
        phoneNumber,
        whatsApp: { provider: 'cloud-api', phoneNumberId, wabaId: '555', accessToken: TOKEN, appSecret: APP_SECRET, verifyToken: 'v' },
      });
      assert.equal(created.status, 200, created.text);
      return created.body.id as string;
    };

    before(async () => {
      const created = await fx.t.admin.post(`/admin/v1/workspaces/${fx.a.workspaceId}/channels`, {
        name: 'Cloud lifecycle',
        type: 2,
        phoneNumber: '+14155550888',
        whatsApp: {
          provider: 'cloud-api',
          phoneNumberId: '7770001',
          wabaId: '555',
          accessToken: TOKEN,
          appSecret: APP_SECRET,
          verifyToken: 'v',
        },
      });
      assert.equal(created.status, 200, created.text);
      cloud = created.body.id;
      const endpoint = await fx.a.api.post('/v1/webhook-endpoints', {
        url: fx.receiver.url('/templates'),
        eventTypes: ['whatsapp.template_updated'],
      });
      assert.equal(endpoint.status, 200, endpoint.text);
    });

    it('Create Template: sent to the WhatsApp Business Account with its components, answered PENDING; a send of it is TemplateNotApproved; bad input is a 400, a duplicate a 409', async () => {
      const template = await create(WELCOME('welcome_pending'));
      assert.equal(template.status, 'PENDING');
      assert.equal(template.category, 'UTILITY');
      assert.equal(template.qualityScore, null);
      assert.equal(template.body, 'Hi {{1}}, your account is ready.');
      const request = fx.fake.requests.find((r) => r.method === 'POST' && r.path === '/v25.0/555/message_templates');
      assert.ok(request, 'POST /{waba-id}/message_templates');
      assert.equal(request.auth, `Bearer ${TOKEN}`);
      assert.deepEqual(request.body.components[0], {
        type: 'BODY',
        text: 'Hi {{1}}, your account is ready.',
        example: { body_text: [['Sara']] },
      });
      assert.equal(request.body.category, 'UTILITY');

      const refused = await sendTemplate('welcome_pending', nextPhone());
      assert.equal(refused.status, 400, refused.text);
      assert.equal(refused.body.error.code, 'WhatsApp:TemplateNotApproved');
      assert.match(refused.body.error.message, /PENDING/);
      const unknown = await sendTemplate('never_made', nextPhone());
      assert.equal(unknown.body.error.code, 'WhatsApp:TemplateNotFound');

      const duplicate = await fx.a.api.post('/v1/whatsapp/templates', { channelId: cloud, ...WELCOME('welcome_pending') });
      assert.equal(duplicate.status, 409, duplicate.text);
      const badCategory = await fx.a.api.post('/v1/whatsapp/templates', { channelId: cloud, ...WELCOME('bad_cat'), category: 'PROMO' });
      assert.equal(badCategory.status, 400, badCategory.text);
      const badName = await fx.a.api.post('/v1/whatsapp/templates', { channelId: cloud, ...WELCOME('Bad Name') });
      assert.equal(badName.status, 400, badName.text);
      const neither = await fx.a.api.post('/v1/whatsapp/templates', {
        channelId: cloud,
        name: 'neither',
        language: 'en_US',
        category: 'UTILITY',
      });
      assert.equal(neither.status, 400, neither.text);
      assert.equal(neither.body.error.code, 'WhatsApp:InvalidTemplate');
      const otherWorkspace = await fx.b.api.post('/v1/whatsapp/templates', { channelId: cloud, ...WELCOME('elsewhere') });
      assert.equal(otherWorkspace.status, 404, otherWorkspace.text);
      // Meta's own refusal comes back as a 400 in its words, and nothing is stored.
      fx.fake.script.push(FakeCloudApi.error(400, 100, 'Invalid parameter: the body has a variable at its start'));
      const metaRefused = await fx.a.api.post('/v1/whatsapp/templates', { channelId: cloud, ...WELCOME('meta_refuses') });
      assert.equal(metaRefused.status, 400, metaRefused.text);
      assert.equal(metaRefused.body.error.code, 'WhatsApp:TemplateRefused');
      assert.equal(await templateOf('meta_refuses'), undefined);
    });

    it("from Meta's template library: library_template_name is sent instead of components; the library's content is read back (GET /{template-id}) and stored, so it lists and sends at once", async () => {
      const template = await create({
        name: 'lib_payment',
        language: 'en_US',
        category: 'UTILITY',
        libraryTemplateName: 'payment_reminder_1',
      });
      const held = metaTemplate('lib_payment');
      assert.equal(held.body.library_template_name, 'payment_reminder_1');
      assert.equal(held.body.components, undefined);
      const read = fx.fake.requests.find((r) => r.method === 'GET' && r.path.startsWith(`/v25.0/${held.id}?`));
      assert.ok(read, 'GET /{template-id}');
      assert.match(read.path, /fields=[^&]*components/);
      assert.equal(template.status, 'APPROVED', "Meta's answer for a library template");
      const library = FakeCloudApi.templateLibrary.payment_reminder_1;
      assert.equal(template.body, (library.components[0] as { text: string }).text);
      const stored = await templateOf('lib_payment');
      assert.equal(stored?.status, 'APPROVED');
      assert.equal(stored?.body, template.body);
      const sent = await fx.a.api.post('/v1/whatsapp/service-account/sendTemplate', {
        channelId: cloud,
        templateName: 'lib_payment',
        language: 'en_US',
        toNumber: nextPhone(),
        parameters: [{ type: 'Body', values: ['Sara', '$12', 'Friday'].map((text) => ({ type: 'text', text })) }],
      });
      assert.equal(sent.status, 200, sent.text);
      const unknown = await fx.a.api.post('/v1/whatsapp/templates', {
        channelId: cloud,
        name: 'lib_unknown',
        language: 'en_US',
        category: 'UTILITY',
        libraryTemplateName: 'no_such_library_template',
      });
      assert.equal(unknown.status, 400, unknown.text);
      assert.equal(unknown.body.error.code, 'WhatsApp:TemplateRefused');
    });

    it('message_template_status_update APPROVED, then message_template_quality_update: stored at once, listed with Status/Category filters and qualityScore, sendable, each a whatsapp.template_updated', async () => {
      const meta = await approved('welcome_ok');
      const sent = await sendTemplate('welcome_ok', nextPhone());
      assert.equal(sent.status, 200, sent.text);

      await notify(FakeCloudApi.templateQualityUpdate(meta, 'UNKNOWN', 'YELLOW'));
      await waitFor(async () => (await templateOf('welcome_ok'))?.qualityScore === 'YELLOW', 10_000, 'the quality score');
      const approvedUtility = await listed(fx.a, `channelId=${cloud}&Status=APPROVED&Category=UTILITY`);
      assert.ok(approvedUtility.some((t) => t.name === 'welcome_ok'));
      assert.ok(!approvedUtility.some((t) => t.name === 'welcome_pending'), 'a PENDING one is filtered out');
      assert.equal((await listed(fx.a, `channelId=${cloud}&Category=MARKETING`)).length, 0);
      assert.equal((await listed(fx.b, `Name=welcome_ok`)).length, 0, "another workspace never sees the channel's templates");

      const events = await waitFor(
        async () => {
          const found = templateEvents('welcome_ok');
          return found.length >= 2 ? found : undefined;
        },
        15_000,
        'two whatsapp.template_updated events',
      );
      assert.deepEqual(events[0].data, {
        channelId: cloud,
        name: 'welcome_ok',
        language: 'en_US',
        status: 'APPROVED',
        previousStatus: 'PENDING',
        category: 'UTILITY',
        previousCategory: 'UTILITY',
        qualityScore: null,
        reason: null,
      });
      assert.equal(events[1].data.qualityScore, 'YELLOW');
      assert.equal(events[1].data.status, 'APPROVED');
      assert.match(events[1].data.reason, /UNKNOWN to YELLOW/);
    });

    it('FLAGGED keeps an approved template sendable; PAUSED then REINSTATED makes it APPROVED again', async () => {
      const meta = await approved('welcome_flagged');
      await notify(FakeCloudApi.templateStatusUpdate(meta, 'FLAGGED', { reason: 'Quality is low' }));
      await waitFor(async () => templateEvents('welcome_flagged').length >= 2, 15_000, 'the FLAGGED event');
      assert.equal((await templateOf('welcome_flagged'))?.status, 'APPROVED', 'a flagged template is still approved');
      const sent = await sendTemplate('welcome_flagged', nextPhone());
      assert.equal(sent.status, 200, sent.text);

      await notify(FakeCloudApi.templateStatusUpdate(meta, 'PAUSED'));
      await waitFor(async () => (await templateOf('welcome_flagged'))?.status === 'PAUSED', 10_000, 'the pause');
      await notify(FakeCloudApi.templateStatusUpdate(meta, 'REINSTATED'));
      await waitFor(async () => (await templateOf('welcome_flagged'))?.status === 'APPROVED', 10_000, 'the reinstatement');
      const again = await sendTemplate('welcome_flagged', nextPhone());
      assert.equal(again.status, 200, again.text);
    });

    it('REJECTED with a reason: kept as statusReason and sent as reason', async () => {
      await create(WELCOME('welcome_rejected'));
      await notify(FakeCloudApi.templateStatusUpdate(metaTemplate('welcome_rejected'), 'REJECTED', { reason: 'INVALID_FORMAT' }));
      const rejected = await waitFor(
        async () => {
          const t = await templateOf('welcome_rejected');
          return t?.status === 'REJECTED' ? t : undefined;
        },
        10_000,
        'the rejection',
      );
      assert.equal(rejected.statusReason, 'INVALID_FORMAT');
      const event = await waitFor(async () => templateEvents('welcome_rejected')[0], 15_000, 'the event');
      assert.equal(event.data.reason, 'INVALID_FORMAT');
      assert.equal(event.data.previousStatus, 'PENDING');
      const refused = await sendTemplate('welcome_rejected', nextPhone());
      assert.equal(refused.body.error.code, 'WhatsApp:TemplateNotApproved');
      assert.match(refused.body.error.message, /REJECTED/);
    });

    /** A Running campaign of `name` to `count` fresh contacts, the provider slowed so that it is still sending. */
    const runningCampaign = async (name: string, count: number, channelId = cloud) => {
      const phones = Array.from({ length: count }, () => nextPhone());
      const vCards = phones.map((p, i) => `BEGIN:VCARD\r\nVERSION:3.0\r\nFN:${name} ${i}\r\nTEL:${p}\r\nEND:VCARD`);
      const imported = await fx.a.api.post('/v1/contacts/import/vcards', { vCards });
      assert.equal(imported.status, 200, imported.text);
      const campaign = await fx.a.api.post('/v1/campaigns', {
        name,
        channelId,
        kind: 'WhatsAppTemplate',
        template: {
          templateName: name,
          language: 'en_US',
          parameters: [{ type: 'Body', values: [{ type: 'text', text: '{{contact.name}}' }] }],
        },
        audience: { search: { filter: name } },
      });
      assert.equal(campaign.status, 200, campaign.text);
      const started = await fx.a.api.post(`/v1/campaigns/${campaign.body.id}/start`, {});
      assert.equal(started.status, 200, started.text);
      assert.equal(started.body.status, 'Running');
      return campaign.body.id as string;
    };
    const campaignOf = async (id: string) => (await fx.a.api.get(`/v1/campaigns/${id}`)).body as Payload;
    /** The campaign once it is Paused (within 15 s). */
    const untilPaused = (id: string, what: string) =>
      waitFor(
        async () => {
          const c = await campaignOf(id);
          return c.status === 'Paused' ? c : undefined;
        },
        15_000,
        what,
      );

    it('template_category_update UTILITY → MARKETING: a Running campaign pauses with TemplateRecategorisedToMarketing; the template is then checked as MARKETING (marketing consent, and quiet hours hold it while a UTILITY one goes)', async () => {
      const meta = await approved('camp_recat');
      fx.fake.sendLatencyMs = 200;
      try {
        const id = await runningCampaign('camp_recat', 300);
        await notify(FakeCloudApi.templateCategoryUpdate(meta, 'UTILITY', 'MARKETING'));
        const paused = await untilPaused(id, 'the campaign to pause');
        assert.equal(paused.pausedReason, 'TemplateRecategorisedToMarketing');
        assert.ok(paused.counts.pending > 0, 'it paused before the end');
      } finally {
        fx.fake.sendLatencyMs = 0;
      }
      assert.equal((await templateOf('camp_recat'))!.category, 'MARKETING');
      const event = await waitFor(
        async () => templateEvents('camp_recat').find((e) => e.data.category === 'MARKETING'),
        15_000,
        'the event',
      );
      assert.equal(event.data.previousCategory, 'UTILITY');

      // A contact opted out of marketing: a UTILITY template would reach it, the recategorised one does not.
      const contact = await fx.a.api.post('/v1/contacts', { name: 'No marketing', phoneNumber: nextPhone() });
      assert.equal(contact.status, 200, contact.text);
      const consent = await fx.a.api.put(`/v1/contacts/${contact.body.id}/consent`, { whatsAppMarketing: { status: 'OptedOut' } });
      assert.equal(consent.status, 200, consent.text);
      const refused = await sendTemplate('camp_recat', contact.body.phoneNumber);
      assert.equal(refused.status, 400, refused.text);
      assert.equal(refused.body.error.code, 'WhatsApp:RecipientOptedOut');

      // Quiet hours for marketing (a +1 number's zone): the recategorised template waits them out, a UTILITY one goes at once.
      await approved('still_utility');
      const { quietHours, endsAt } = quietAroundNow('America/New_York', ['Marketing']);
      assert.equal((await fx.a.api.put('/v1/send-policy', { quietHours })).status, 200);
      try {
        const held = await sendTemplate('camp_recat', nextPhone());
        assert.equal(held.status, 200, held.text);
        assert.equal(held.body.status, 'scheduled', 'held as marketing');
        assert.equal(held.body.scheduledFor, endsAt.toISOString());
        const utility = await sendTemplate('still_utility', nextPhone());
        assert.equal(utility.status, 200, utility.text);
        assert.equal(utility.body.status, 'accepted', 'a UTILITY template is not held');
      } finally {
        assert.equal((await fx.a.api.put('/v1/send-policy', { quietHours: null })).status, 200);
      }
    });

    it('message_template_status_update PAUSED: a Running campaign pauses with TemplatePaused, sends are TemplateNotApproved; DISABLED pauses with TemplateDisabled', async () => {
      for (const [name, status, reason] of [
        ['camp_paused', 'PAUSED', 'TemplatePaused'],
        ['camp_disabled', 'DISABLED', 'TemplateDisabled'],
      ]) {
        const meta = await approved(name);
        fx.fake.sendLatencyMs = 200;
        try {
          const id = await runningCampaign(name, 300);
          await notify(
            FakeCloudApi.templateStatusUpdate(meta, status, {
              otherInfo: { title: 'FIRST_PAUSE', description: 'Your template was paused for low quality.' },
            }),
          );
          const paused = await untilPaused(id, 'the campaign to pause');
          assert.equal(paused.pausedReason, reason);
        } finally {
          fx.fake.sendLatencyMs = 0;
        }
        const refused = await sendTemplate(name, nextPhone());
        assert.equal(refused.status, 400, refused.text);
        assert.equal(refused.body.error.code, 'WhatsApp:TemplateNotApproved');
        assert.match(refused.body.error.message, new RegExp(status));
        const event = await waitFor(async () => templateEvents(name).find((e) => e.data.status === status), 15_000, 'the event');
        assert.equal(event.data.previousStatus, 'APPROVED');
        assert.match(event.data.reason, /FIRST_PAUSE/);
      }
    });

    it('Delete Template: every language on the account and here; a send then is TemplateNotFound; an unknown name is a 404', async () => {
      await create(WELCOME('to_delete'));
      await create({ ...WELCOME('to_delete'), language: 'es' });
      const deleted = await fx.a.api.delete(`/v1/whatsapp/templates/to_delete?channelId=${cloud}`);
      assert.equal(deleted.status, 200, deleted.text);
      assert.deepEqual(deleted.body, { deleted: 2 });
      const request = fx.fake.requests.find((r) => r.method === 'DELETE');
      assert.equal(request?.path, '/v25.0/555/message_templates?name=to_delete');
      assert.equal(await templateOf('to_delete'), undefined);
      const gone = await sendTemplate('to_delete', nextPhone());
      assert.equal(gone.status, 400, gone.text);
      assert.equal(gone.body.error.code, 'WhatsApp:TemplateNotFound');
      assert.ok(!fx.fake.createdTemplates.some((t) => t.name === 'to_delete'));
      const again = await fx.a.api.delete(`/v1/whatsapp/templates/to_delete?channelId=${cloud}`);
      assert.equal(again.status, 404, again.text);
      assert.equal((await fx.a.api.delete(`/v1/whatsapp/templates/to_delete`)).status, 400, 'channelId is required');
    });

    it('a Running campaign whose template is deleted pauses with TemplateNotFound instead of failing every send', async () => {
      const name = 'camp_deleted';
      await create(WELCOME(name));
      await notify(FakeCloudApi.templateStatusUpdate(metaTemplate(name), 'APPROVED'));
      await waitFor(async () => (await templateOf(name))?.status === 'APPROVED', 10_000, 'approval');
      fx.fake.sendLatencyMs = 200;
      try {
        const id = await runningCampaign(name, 300);
        const deleted = await fx.a.api.delete(`/v1/whatsapp/templates/${name}?channelId=${cloud}`);
        assert.equal(deleted.status, 200, deleted.text);
        const paused = await untilPaused(id, 'the campaign to pause');
        assert.equal(paused.pausedReason, 'TemplateNotFound');
      } finally {
        fx.fake.sendLatencyMs = 0;
      }
    });

    it('a sandbox channel answers PENDING and approves at once (a whatsapp.template_updated), so the template is sendable right away', async () => {
      const sandbox = await createChannel(fx.t, fx.a.workspaceId, { name: 'Sandbox lifecycle' });
      const res = await fx.a.api.post('/v1/whatsapp/templates', { channelId: sandbox.id, ...WELCOME('sandbox_new') });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.status, 'PENDING');
      const [stored] = await listed(fx.a, `channelId=${sandbox.id}&Name=sandbox_new`);
      assert.equal(stored.status, 'APPROVED');
      const sent = await fx.a.api.post('/v1/whatsapp/service-account/sendTemplate', {
        channelId: sandbox.id,
        templateName: 'sandbox_new',
        language: 'en_US',
        toNumber: nextPhone(),
        parameters: [{ type: 'Body', values: [{ type: 'text', text: 'Sara' }] }],
      });
      assert.equal(sent.status, 200, sent.text);
      const event = await waitFor(async () => templateEvents('sandbox_new')[0], 15_000, 'the event');
      assert.equal(event.data.previousStatus, 'PENDING');
      assert.equal(event.data.status, 'APPROVED');
    });

    it("a template webhook reaches every channel of the WhatsApp Business Account in the workspace (a campaign there pauses too), never another workspace's channel with the same wabaId", async () => {
      const name = 'shared_account';
      const meta = await approved(name);
      const sibling = await channelOnAccount555(fx.a.workspaceId, 'Sibling number', '+14155550889', '7770002');
      const stranger = await channelOnAccount555(fx.b.workspaceId, 'Same wabaId elsewhere', '+14155550890', '7770003');
      fx.fake.templatePages = [
        { data: [{ id: meta.id, name, language: 'en_US', category: 'UTILITY', status: 'APPROVED', components: WELCOME(name).components }] },
      ];
      try {
        for (const id of [sibling, stranger]) {
          const synced = await fx.t.admin.post(`/admin/v1/channels/${id}/templates/sync`);
          assert.equal(synced.status, 200, synced.text);
        }
      } finally {
        fx.fake.templatePages = [];
      }
      const onSibling = async () => (await listed(fx.a, `channelId=${sibling}&Name=${name}`))[0];
      fx.fake.sendLatencyMs = 200;
      try {
        const id = await runningCampaign(name, 300, sibling);
        // Meta's webhook comes to the first channel's URL only.
        await notify(FakeCloudApi.templateStatusUpdate(meta, 'PAUSED'));
        await waitFor(async () => (await onSibling())?.status === 'PAUSED', 10_000, "the sibling channel's template to pause");
        const paused = await untilPaused(id, "the sibling channel's campaign to pause");
        assert.equal(paused.pausedReason, 'TemplatePaused');
      } finally {
        fx.fake.sendLatencyMs = 0;
      }
      assert.equal((await templateOf(name))?.status, 'PAUSED');
      const events = await waitFor(
        async () => {
          const found = templateEvents(name).filter((e) => e.data.status === 'PAUSED');
          return found.length >= 2 ? found : undefined;
        },
        15_000,
        'one whatsapp.template_updated per channel',
      );
      assert.deepEqual(events.map((e) => e.data.channelId).sort(), [cloud, sibling].sort());
      const [elsewhere] = await listed(fx.b, `channelId=${stranger}&Name=${name}`);
      assert.equal(elsewhere.status, 'APPROVED', "another workspace's channel of the same wabaId is not touched");
    });

    it("the admin sync keeps Meta's quality_score (asked for by fields, kept when not listed) and applies a status change as the webhook would: the campaign pauses, whatsapp.template_updated", async () => {
      const name = 'sync_paused';
      const meta = await approved(name);
      const listedByMeta = (status: string, quality?: string) => ({
        id: meta.id,
        name,
        language: 'en_US',
        category: 'UTILITY',
        status,
        components: WELCOME(name).components,
        ...(quality ? { quality_score: { score: quality, date: 1_764_000_000 } } : {}),
      });
      const sync = async () => {
        const synced = await fx.t.admin.post(`/admin/v1/channels/${cloud}/templates/sync`);
        assert.equal(synced.status, 200, synced.text);
      };
      fx.fake.sendLatencyMs = 200;
      try {
        const id = await runningCampaign(name, 300);
        fx.fake.templatePages = [{ data: [listedByMeta('PAUSED', 'RED')] }];
        await sync();
        const paused = await campaignOf(id);
        assert.equal(paused.status, 'Paused', 'paused in the same transaction as the sync');
        assert.equal(paused.pausedReason, 'TemplatePaused');
      } finally {
        fx.fake.sendLatencyMs = 0;
        fx.fake.templatePages = [];
      }
      const stored = await templateOf(name);
      assert.equal(stored?.status, 'PAUSED');
      assert.equal(stored?.qualityScore, 'RED');
      const event = await waitFor(async () => templateEvents(name).find((e) => e.data.status === 'PAUSED'), 15_000, 'the event');
      assert.equal(event.data.previousStatus, 'APPROVED');
      assert.equal(event.data.qualityScore, 'RED');

      // Listed without a quality score (and unchanged otherwise): the stored one stays, and no event is sent.
      const eventsBefore = templateEvents(name).length;
      fx.fake.templatePages = [{ data: [listedByMeta('PAUSED')] }];
      try {
        await sync();
      } finally {
        fx.fake.templatePages = [];
      }
      assert.equal((await templateOf(name))?.qualityScore, 'RED');
      assert.equal(templateEvents(name).length, eventsBefore);
    });

    /** Runs `body` while PostgreSQL refuses (a trigger raising) the template writes `when` matches, on `event` (INSERT or UPDATE). */
    const whileDatabaseRefuses = async (event: 'INSERT' | 'UPDATE', when: string, body: () => Promise<void>) => {
      const db = new Client({ connectionString: fx.t.databaseUrl });
      await db.connect();
      try {
        await db.query(`CREATE OR REPLACE FUNCTION refuse_for_test() RETURNS trigger LANGUAGE plpgsql AS $$
                          BEGIN RAISE EXCEPTION 'refused by the test'; END $$`);
        await db.query(
          `CREATE TRIGGER refuse_for_test BEFORE ${event} ON whatsapp_templates FOR EACH ROW WHEN (${when}) EXECUTE FUNCTION refuse_for_test()`,
        );
        try {
          await body();
        } finally {
          await db.query('DROP TRIGGER refuse_for_test ON whatsapp_templates');
        }
      } finally {
        await db.end();
      }
    };

    it('a sandbox create whose approval fails leaves nothing stored (one transaction); tried again, it is stored and approved', async () => {
      const sandbox = await createChannel(fx.t, fx.a.workspaceId, { name: 'Sandbox atomic' });
      await whileDatabaseRefuses('UPDATE', "NEW.name = 'sandbox_atomic' AND NEW.status = 'APPROVED'", async () => {
        const failed = await fx.a.api.post('/v1/whatsapp/templates', { channelId: sandbox.id, ...WELCOME('sandbox_atomic') });
        assert.equal(failed.status, 500, failed.text);
      });
      assert.deepEqual(await listed(fx.a, `channelId=${sandbox.id}&Name=sandbox_atomic`), [], 'no PENDING template is left behind');
      const again = await fx.a.api.post('/v1/whatsapp/templates', { channelId: sandbox.id, ...WELCOME('sandbox_atomic') });
      assert.equal(again.status, 200, again.text);
      const [stored] = await listed(fx.a, `channelId=${sandbox.id}&Name=sandbox_atomic`);
      assert.equal(stored.status, 'APPROVED');
    });

    it("a cloud create whose local store fails after Meta accepted: the retry adopts the account's template (Meta's id) instead of a refusal, and Meta holds it once", async () => {
      const name = 'cloud_atomic';
      await whileDatabaseRefuses('INSERT', `NEW.name = '${name}'`, async () => {
        const failed = await fx.a.api.post('/v1/whatsapp/templates', { channelId: cloud, ...WELCOME(name) });
        assert.equal(failed.status, 500, failed.text);
      });
      assert.equal(await templateOf(name), undefined);
      const meta = metaTemplate(name);
      const adopted = await create(WELCOME(name));
      assert.equal(adopted.status, 'PENDING');
      assert.equal(adopted.body, 'Hi {{1}}, your account is ready.');
      assert.equal(fx.fake.createdTemplates.filter((t) => t.name === name).length, 1, 'the account holds it once');
      const lookup = fx.fake.requests.find(
        (r) => r.method === 'GET' && r.path.startsWith('/v25.0/555/message_templates?name=cloud_atomic'),
      );
      assert.ok(lookup, "the account's template is looked up by name and language");
      // Adopted with Meta's id: a webhook naming only that id finds it.
      await notify(FakeCloudApi.templateStatusUpdate({ ...meta, name: '', language: '' }, 'APPROVED'));
      await waitFor(async () => (await templateOf(name))?.status === 'APPROVED', 10_000, 'the approval by id');
    });
  },
);
