import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { DataSource } from 'typeorm';
import { describeWithApp } from '../support/describe-with-app.js';
import { createChannel } from '../support/fixtures.js';
import { FakeCloudApi } from '../support/fake-cloud-api.js';

const TOKEN = 'EAAG-calling-token';
const PHONE_NUMBER_ID = '2098765';

/** Templates with a call permission request button as Meta lists them: one approved, one paused. */
const CALL_TEMPLATE = {
  name: 'may_we_call',
  language: 'en',
  category: 'UTILITY',
  status: 'APPROVED',
  components: [{ type: 'BODY', text: 'May we call you?' }, { type: 'CALL_PERMISSION_REQUEST' }],
};
const PAUSED_TEMPLATE = { ...CALL_TEMPLATE, name: 'may_we_call_paused', status: 'PAUSED' };

const HOURS = {
  timezoneId: 'Asia/Riyadh',
  weeklyOperatingHours: [
    { dayOfWeek: 'SUNDAY', openTime: '0900', closeTime: '1700' },
    { dayOfWeek: 'MONDAY', openTime: '0900', closeTime: '1730' },
  ],
  holidaySchedule: [{ date: '2026-12-25', startTime: '0000', endTime: '2359' }],
};

describeWithApp(
  'Set WhatsApp Calling: PUT /v1/channels/{id}/calling (Meta settings through a fake Graph API)',
  { peers: { fake: () => FakeCloudApi.start({ acceptedTokens: [TOKEN] }) }, env: ({ fake }) => ({ WHATSAPP_GRAPH_URL: fake.url }) },
  (fx) => {
    let channelId: string;
    let flowId: string;
    const put = (id: string, body: unknown) => fx.a.api.request('PUT', `/v1/channels/${id}/calling`, { json: body });
    const settingsPosts = () => fx.fake.requests.filter((r) => r.method === 'POST' && r.path === `/v25.0/${PHONE_NUMBER_ID}/settings`);

    before(async () => {
      const created = await fx.t.admin.post(`/admin/v1/workspaces/${fx.a.workspaceId}/channels`, {
        name: 'Calls line',
        type: 2,
        phoneNumber: '+14155550901',
        whatsApp: {
          provider: 'cloud-api',
          phoneNumberId: PHONE_NUMBER_ID,
          wabaId: '555',
          accessToken: TOKEN,
          appSecret: 's',
          verifyToken: 'v',
        },
      });
      assert.equal(created.status, 200, created.text);
      channelId = created.body.id;
      const flow = await fx.a.api.post('/v1/outbound-ivr-flows', {
        name: 'Reception',
        startStepId: 'hello',
        steps: [
          { id: 'hello', type: 'Play', props: { ttsText: 'Hello.', nextStepId: 'bye' } },
          { id: 'bye', type: 'Hangup', props: {} },
        ],
      });
      assert.equal(flow.status, 200, flow.text);
      flowId = flow.body.id;
    });

    it("permissionTemplate must be one of the channel's synced templates, APPROVED, in that language: else a 400 naming the field, and nothing is written (as Send Template refuses a template the cache does not know, a channel never synced knows none)", async () => {
      const stored = async (id: string) =>
        (
          await fx.t.app
            .get(DataSource)
            .query<Array<{ calling: unknown }>>('SELECT whats_app_calling AS calling FROM channels WHERE id = $1', [id])
        )[0].calling;
      const settings = (permissionTemplate: { name: string; language: string }) => ({ enabled: true, permissionTemplate });
      const refused = async (id: string, template: { name: string; language: string }, code: string, message: RegExp) => {
        const before = { posts: settingsPosts().length, stored: await stored(id) };
        const res = await put(id, settings(template));
        assert.equal(res.status, 400, `${JSON.stringify(template)}: ${res.text}`);
        assert.equal(res.body.statusCode, 400);
        assert.equal(res.body.error.code, code, res.text);
        assert.match(res.body.error.message, message);
        assert.ok(
          res.body.error.validationErrors?.some((e: { members: string[] }) => e.members.includes('permissionTemplate')),
          `names permissionTemplate: ${res.text}`,
        );
        assert.equal(settingsPosts().length, before.posts, 'nothing reached Meta');
        assert.deepEqual(await stored(id), before.stored, 'nothing stored');
      };

      // Never synced: the channel's cache knows no template at all.
      await refused(
        channelId,
        { name: CALL_TEMPLATE.name, language: 'en' },
        'WhatsApp:TemplateNotFound',
        /No approved template 'may_we_call'/,
      );

      fx.fake.templatePages = [{ data: [CALL_TEMPLATE, PAUSED_TEMPLATE] }];
      const synced = await fx.t.admin.post(`/admin/v1/channels/${channelId}/templates/sync`);
      assert.deepEqual(synced.body, { synced: 2 }, synced.text);
      await refused(channelId, { name: 'no_such_template', language: 'en' }, 'WhatsApp:TemplateNotFound', /no_such_template/);
      await refused(channelId, { name: CALL_TEMPLATE.name, language: 'fr' }, 'WhatsApp:TemplateNotFound', /in language 'fr'/);
      await refused(channelId, { name: PAUSED_TEMPLATE.name, language: 'en' }, 'WhatsApp:TemplateNotApproved', /is PAUSED, not APPROVED/);

      // Another channel's template is not this channel's.
      const other = await fx.t.admin.post(`/admin/v1/workspaces/${fx.a.workspaceId}/channels`, {
        name: 'Other line',
        type: 2,
        phoneNumber: '+14155550902',
        whatsApp: { provider: 'cloud-api', phoneNumberId: '2098766', wabaId: '556', accessToken: TOKEN, appSecret: 's', verifyToken: 'v' },
      });
      assert.equal(other.status, 200, other.text);
      await refused(other.body.id, { name: CALL_TEMPLATE.name, language: 'en' }, 'WhatsApp:TemplateNotFound', /may_we_call/);

      const ok = await put(channelId, settings({ name: CALL_TEMPLATE.name, language: 'en' }));
      assert.equal(ok.status, 200, ok.text);
      assert.deepEqual(ok.body.permissionTemplate, { name: CALL_TEMPLATE.name, language: 'en' });
    });

    it("enables calling with hours and flows: Meta's settings are posted with the channel's token, as Meta documents them", async () => {
      const res = await put(channelId, {
        enabled: true,
        callHours: HOURS,
        callbackPermission: true,
        inboundFlowId: flowId,
        afterHoursFlowId: flowId,
        permissionTemplate: { name: 'may_we_call', language: 'en' },
      });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, {
        channelId,
        enabled: true,
        callHours: HOURS,
        callbackPermission: true,
        inboundFlowId: flowId,
        afterHoursFlowId: flowId,
        permissionTemplate: { name: 'may_we_call', language: 'en' },
      });
      const posted = settingsPosts().at(-1)!;
      assert.equal(posted.auth, `Bearer ${TOKEN}`);
      assert.deepEqual(posted.body, {
        calling: {
          status: 'ENABLED',
          call_hours: {
            status: 'ENABLED',
            timezone_id: 'Asia/Riyadh',
            weekly_operating_hours: [
              { day_of_week: 'SUNDAY', open_time: '0900', close_time: '1700' },
              { day_of_week: 'MONDAY', open_time: '0900', close_time: '1730' },
            ],
            holiday_schedule: [{ date: '2026-12-25', start_time: '0000', end_time: '2359' }],
          },
          callback_permission_status: 'ENABLED',
        },
      });
    });

    it('replaces the whole setting: disabling sends DISABLED, hours off, and clears the flows and the permission template', async () => {
      const res = await put(channelId, { enabled: false });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, {
        channelId,
        enabled: false,
        callHours: null,
        callbackPermission: false,
        inboundFlowId: null,
        afterHoursFlowId: null,
        permissionTemplate: null,
      });
      assert.deepEqual(fx.fake.callingSettings.get(PHONE_NUMBER_ID), {
        status: 'DISABLED',
        call_hours: { status: 'DISABLED' },
        callback_permission_status: 'DISABLED',
      });
    });

    it("Meta's refusal is a 400 with Meta's words and leaves the stored setting as it was; Meta's outage is a 503", async () => {
      assert.equal((await put(channelId, { enabled: true, inboundFlowId: flowId })).status, 200);
      fx.fake.settingsScript.push(
        FakeCloudApi.error(400, 138006, 'Calling is not available for this phone number: its messaging limit is below 2000.'),
      );
      const refused = await put(channelId, { enabled: true, callbackPermission: true });
      assert.equal(refused.status, 400, refused.text);
      assert.equal(refused.body.error.code, 'WhatsApp:CallingSettingsRefused');
      assert.match(refused.body.error.message, /138006.*messaging limit is below 2000/);

      fx.fake.settingsScript.push(FakeCloudApi.error(500, 1, 'An unknown error occurred'));
      const outage = await put(channelId, { enabled: false });
      assert.equal(outage.status, 503, outage.text);
      assert.equal(outage.body.error.code, 'WhatsApp:GraphUnavailable');

      // The stored setting is still the one Meta took: a no-op PUT of it returns it unchanged.
      const again = await put(channelId, { enabled: true, inboundFlowId: flowId });
      assert.equal(again.status, 200, again.text);
      assert.equal(again.body.inboundFlowId, flowId);
    });

    it('refuses bad input with 400 envelopes naming the field, before anything reaches Meta', async () => {
      const before = settingsPosts().length;
      for (const [body, member] of [
        [{}, 'enabled'],
        [{ enabled: 'yes' }, 'enabled'],
        [{ enabled: true, callHours: { ...HOURS, timezoneId: 'Mars/Olympus' } }, 'callHours.timezoneId'],
        [
          { enabled: true, callHours: { ...HOURS, weeklyOperatingHours: [{ dayOfWeek: 'FUNDAY', openTime: '0900', closeTime: '1000' }] } },
          'callHours.weeklyOperatingHours[0].dayOfWeek',
        ],
        [
          { enabled: true, callHours: { ...HOURS, weeklyOperatingHours: [{ dayOfWeek: 'MONDAY', openTime: '2500', closeTime: '1000' }] } },
          'callHours.weeklyOperatingHours[0].openTime',
        ],
        [
          { enabled: true, callHours: { ...HOURS, weeklyOperatingHours: [{ dayOfWeek: 'MONDAY', openTime: '1700', closeTime: '0900' }] } },
          'callHours.weeklyOperatingHours[0].closeTime',
        ],
        [{ enabled: true, inboundFlowId: 'not-a-uuid' }, 'inboundFlowId'],
        [{ enabled: true, callbackPermission: null }, 'callbackPermission'],
      ] as const) {
        const res = await put(channelId, body);
        assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
        assert.ok(
          res.body.error.validationErrors?.some((e: { members: string[] }) => e.members.includes(member)),
          `${JSON.stringify(body)} names ${member}: ${res.text}`,
        );
      }
      const unknownFlow = await put(channelId, { enabled: true, inboundFlowId: '00000000-0000-4000-8000-000000000001' });
      assert.equal(unknownFlow.status, 404, unknownFlow.text);
      assert.equal(settingsPosts().length, before, 'nothing reached Meta');
    });

    it("a phone-only channel, or another workspace's, is a 404; a sandbox WhatsApp channel stores the setting without Meta", async () => {
      const phone = await createChannel(fx.t, fx.a.workspaceId, { type: 1, whatsApp: undefined });
      assert.equal((await put(phone.id, { enabled: true })).status, 404);
      assert.equal((await fx.b.api.request('PUT', `/v1/channels/${channelId}/calling`, { json: { enabled: true } })).status, 404);
      const before = fx.fake.requests.length;
      const sandbox = await createChannel(fx.t, fx.a.workspaceId);
      const res = await put(sandbox.id, { enabled: true, inboundFlowId: flowId });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.inboundFlowId, flowId);
      assert.equal(fx.fake.requests.length, before);
    });
  },
);
