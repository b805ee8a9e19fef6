import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { Client } from 'pg';
import { approvedTemplate, createCloudChannel } from '../support/cloud-channel.js';
import * as corpus from '../support/cloud-notifications.js';
import { describeWithApp } from '../support/describe-with-app.js';
import { FakeCloudApi } from '../support/fake-cloud-api.js';
import { createChannel, waitFor } from '../support/fixtures.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const TOKEN = 'EAAG-meta-tiers';
const APP_SECRET = 'meta-tiers-secret';
const ORDER = approvedTemplate('order_ready', 'UTILITY', 'Your order is ready.');

type Payload = Record<string, any>;

describeWithApp(
  "The number's tiers from Meta and one messaging limit per business (API.md §14)",
  {
    peers: { fake: () => FakeCloudApi.start({ acceptedTokens: [TOKEN] }), receiver: () => WebhookReceiver.start() },
    env: ({ fake }) => ({
      WHATSAPP_GRAPH_URL: fake.url,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      RATE_LIMIT_REQUESTS_PER_MINUTE: '1000000',
      RATE_LIMIT_WHATSAPP_SENDS_PER_SECOND: '100000',
    }),
  },
  (fx) => {
    let one: { id: string };
    let two: { id: string };
    let alone: { id: string };
    let foreign: { id: string };
    let phoneNumberIds = 8100;

    const channel = async (workspace: 'a' | 'b', phoneNumber: string, businessId: string | null) => {
      const ws = fx[workspace];
      const created = await createCloudChannel(fx.t, ws.workspaceId, fx.fake, {
        phoneNumberId: String(++phoneNumberIds),
        accessToken: TOKEN,
        appSecret: APP_SECRET,
        phoneNumber,
        templates: [ORDER],
      });
      if (businessId) {
        const patched = await ws.api.request('PATCH', `/v1/channels/${created.id}`, { json: { businessId } });
        assert.equal(patched.status, 200, patched.text);
        assert.equal(patched.body.businessId, businessId);
      }
      return created;
    };
    const notify = async (channelId: string, notification: unknown) =>
      assert.equal(await FakeCloudApi.notify(`${fx.t.baseUrl}/v1/whatsapp/webhooks/${channelId}`, APP_SECRET, notification), 200);
    const limitsOf = async (channelId: string, ws: 'a' | 'b' = 'a') => {
      const res = await fx[ws].api.get(`/v1/channels/${channelId}/limits`);
      assert.equal(res.status, 200, res.text);
      return res.body as Payload;
    };
    const sendTemplate = (channelId: string, toNumber: string, ws: 'a' | 'b' = 'a') =>
      fx[ws].api.post('/v1/whatsapp/service-account/sendTemplate', {
        channelId,
        templateName: ORDER.name,
        language: ORDER.language,
        toNumber,
      });
    const qualityEvents = () =>
      fx.receiver
        .at('/tiers')
        .map((r) => JSON.parse(r.body) as Payload)
        .filter((e) => e.type === 'channel.quality_updated');

    before(async () => {
      one = await channel('a', '+14155550701', '1029384756');
      two = await channel('a', '+14155550702', '1029384756');
      alone = await channel('a', '+14155550703', null);
      foreign = await channel('b', '+14155550704', '1029384756');
      const endpoint = await fx.a.api.post('/v1/webhook-endpoints', {
        url: fx.receiver.url('/tiers'),
        eventTypes: ['channel.quality_updated'],
      });
      assert.equal(endpoint.status, 200, endpoint.text);
    });

    it('shows businessId on the channel; a malformed one is a 400 and changes nothing; null clears it', async () => {
      const listed = await fx.a.api.get('/v1/channels/service-account?MaxResultCount=100');
      const byId = new Map((listed.body.items as Payload[]).map((c) => [c.id, c]));
      assert.equal(byId.get(one.id)?.businessId, '1029384756');
      assert.equal(byId.get(alone.id)?.businessId, null);
      const bad = await fx.a.api.request('PATCH', `/v1/channels/${alone.id}`, { json: { businessId: 'not a portfolio' } });
      assert.equal(bad.status, 400, bad.text);
      assert.match(bad.text, /businessId/);
      const set = await fx.a.api.request('PATCH', `/v1/channels/${alone.id}`, { json: { businessId: 'temp-1' } });
      assert.equal(set.body.businessId, 'temp-1');
      const cleared = await fx.a.api.request('PATCH', `/v1/channels/${alone.id}`, { json: { businessId: null } });
      assert.equal(cleared.status, 200, cleared.text);
      assert.equal(cleared.body.businessId, null);
    });

    it("Meta's quality webhooks set the tiers at once, an operator's PUT holds until Meta's next update, and each change is a channel.quality_updated event", async () => {
      // The operator types a throughput in; Meta's THROUGHPUT_UPGRADE then replaces it.
      const put = await fx.t.admin.put(`/admin/v1/channels/${one.id}/limits`, { throughputPerSecond: 5 });
      assert.equal(put.status, 200, put.text);
      assert.equal(put.body.setBy, 'Operator');
      await notify(one.id, corpus.phoneNumberQualityUpdate('14155550701', 'THROUGHPUT_UPGRADE', { current: 'TIER_UNLIMITED' }));
      await waitFor(async () => (await limitsOf(one.id)).throughputPerSecond === 1000, 10_000, 'the higher throughput');
      let limits = await limitsOf(one.id);
      assert.equal(limits.setBy, 'Meta');
      assert.equal(limits.messagingLimit, 1000, 'TIER_UNLIMITED of a throughput upgrade leaves the messaging limit');
      assert.equal((await limitsOf(two.id)).throughputPerSecond, 80, 'throughput is per number');

      // A messaging-limit upgrade is the portfolio's: both numbers of the business take it.
      await notify(
        one.id,
        corpus.phoneNumberQualityUpdate('14155550701', 'UPGRADE', { old: 'TIER_1K', current: 'TIER_10K', perBusiness: 'TIER_10K' }),
      );
      await waitFor(async () => (await limitsOf(two.id)).messagingLimit === 10000, 10_000, 'the portfolio limit on the second number');
      assert.equal((await limitsOf(one.id)).messagingLimit, 10000);
      assert.equal((await limitsOf(alone.id)).messagingLimit, 1000, 'a channel of no business keeps its own');
      assert.equal(
        (await limitsOf(foreign.id, 'b')).messagingLimit,
        1000,
        "another workspace's channel with the same businessId is untouched",
      );

      // The operator overrides; Meta's next update (a downgrade after a flag) wins over it.
      const override = await fx.t.admin.put(`/admin/v1/channels/${one.id}/limits`, { messagingLimit: 100000 });
      assert.equal(override.body.messagingLimit, 100000);
      assert.equal(override.body.setBy, 'Operator');
      assert.equal((await limitsOf(one.id)).messagingLimit, 100000, 'the override holds until Meta speaks');
      await notify(one.id, corpus.phoneNumberQualityUpdate('14155550701', 'FLAGGED', { current: 'TIER_10K', perBusiness: 'TIER_10K' }));
      await waitFor(async () => (await limitsOf(one.id)).qualityRating === 'RED', 10_000, 'the flag');
      await notify(
        one.id,
        corpus.phoneNumberQualityUpdate('+1 415-555-0701', 'DOWNGRADE', { old: 'TIER_10K', current: 'TIER_2K', perBusiness: 'TIER_2K' }),
      );
      await waitFor(async () => (await limitsOf(one.id)).messagingLimit === 2000, 10_000, "Meta's downgrade over the override");
      limits = await limitsOf(one.id);
      assert.deepEqual([limits.setBy, limits.qualityRating, limits.throughputPerSecond], ['Meta', 'RED', 1000]);

      // A number none of the workspace's channels has changes nothing.
      await notify(one.id, corpus.phoneNumberQualityUpdate('14155559999', 'UPGRADE', { perBusiness: 'TIER_100K' }));

      await waitFor(async () => qualityEvents().length >= 6, 15_000, 'the channel.quality_updated events');
      const events = qualityEvents();
      for (const event of events) assert.equal(event.workspaceId, fx.a.workspaceId);
      const upgradeOfTwo = events.find((e) => e.data.channelId === two.id && e.data.event === 'UPGRADE');
      assert.deepEqual(upgradeOfTwo?.data, {
        channelId: two.id,
        businessId: '1029384756',
        qualityRating: null,
        throughputPerSecond: 80,
        messagingLimit: 10000,
        event: 'UPGRADE',
      });
      const downgrade = events.find((e) => e.data.channelId === one.id && e.data.event === 'DOWNGRADE');
      assert.deepEqual(downgrade?.data, {
        channelId: one.id,
        businessId: '1029384756',
        qualityRating: 'RED',
        throughputPerSecond: 1000,
        messagingLimit: 2000,
        event: 'DOWNGRADE',
      });
      assert.ok(!events.some((e) => e.data.messagingLimit === 100000 && e.data.event === 'UPGRADE'), 'the unknown number made no event');
      assert.equal((await limitsOf(two.id)).messagingLimit, 2000);
    });

    it("two channels of one business share one count of unique recipients; a channel of no business and another workspace's same businessId count apart", async () => {
      for (const [channelId, to] of [
        [one.id, '+966500100001'],
        [one.id, '+966500100002'],
        [two.id, '+966500100002'],
        [two.id, '+966500100003'],
      ]) {
        const sent = await sendTemplate(channelId, to);
        assert.equal(sent.status, 200, sent.text);
      }
      const [a, b] = [await limitsOf(one.id), await limitsOf(two.id)];
      assert.deepEqual([a.uniqueRecipients24h, b.uniqueRecipients24h], [3, 3], 'one recipient sent from both numbers counts once');
      assert.equal(a.remaining24h, 2000 - 3);
      assert.equal((await limitsOf(alone.id)).uniqueRecipients24h, 0);
      assert.equal((await limitsOf(foreign.id, 'b')).uniqueRecipients24h, 0, 'a businessId is scoped to its workspace');
      const foreignSend = await sendTemplate(foreign.id, '+966500100001', 'b');
      assert.equal(foreignSend.status, 200, foreignSend.text);
      assert.equal((await limitsOf(foreign.id, 'b')).uniqueRecipients24h, 1);
      assert.equal((await limitsOf(one.id)).uniqueRecipients24h, 3);
    });

    it("all channels of one business use one messaging limit: a PUT on any sets it for all, a channel joining takes the business's (and its count), the first to join a new business brings its own", async () => {
      const mover = await channel('a', '+14155550705', null);
      const own = await fx.t.admin.put(`/admin/v1/channels/${mover.id}/limits`, { messagingLimit: 250 });
      assert.equal(own.body.messagingLimit, 250);
      const business = await limitsOf(one.id);
      const joined = await fx.a.api.request('PATCH', `/v1/channels/${mover.id}`, { json: { businessId: '1029384756' } });
      assert.equal(joined.status, 200, joined.text);
      let limits = await limitsOf(mover.id);
      assert.equal(limits.messagingLimit, business.messagingLimit, "the business's limit, not the channel's own 250");
      assert.equal(limits.uniqueRecipients24h, business.uniqueRecipients24h, "the business's count");

      const put = await fx.t.admin.put(`/admin/v1/channels/${mover.id}/limits`, { messagingLimit: 10000 });
      assert.equal(put.status, 200, put.text);
      assert.equal(put.body.messagingLimit, 10000);
      for (const id of [one.id, two.id]) assert.equal((await limitsOf(id)).messagingLimit, 10000, 'one number for the business');
      assert.equal((await limitsOf(alone.id)).messagingLimit, 1000, 'a channel of no business keeps its own');
      assert.equal((await limitsOf(foreign.id, 'b')).messagingLimit, 1000, "another workspace's same businessId is another business");

      // A business new to the workspace takes the limit of its first channel; the next one to join takes that.
      const first = await channel('a', '+14155550706', null);
      assert.equal((await fx.t.admin.put(`/admin/v1/channels/${first.id}/limits`, { messagingLimit: 250 })).status, 200);
      const firstJoined = await fx.a.api.request('PATCH', `/v1/channels/${first.id}`, { json: { businessId: 'portfolio-2' } });
      assert.equal(firstJoined.status, 200, firstJoined.text);
      const second = await channel('a', '+14155550707', 'portfolio-2');
      assert.equal((await limitsOf(second.id)).messagingLimit, 250, "the second channel takes the business's 250, not its default 1,000");

      // Leaving the business: the channel's own limit and count again.
      const left = await fx.a.api.request('PATCH', `/v1/channels/${mover.id}`, { json: { businessId: null } });
      assert.equal(left.status, 200, left.text);
      limits = await limitsOf(mover.id);
      assert.equal(limits.uniqueRecipients24h, 0);
      assert.equal(limits.messagingLimit, 10000, 'its own row took the last PUT too');
    });

    it("Meta's account_update restricting business-initiated messaging stops new recipients on the account's numbers of this workspace only", async () => {
      await notify(
        one.id,
        corpus.accountUpdate(
          {
            event: 'ACCOUNT_RESTRICTION',
            restriction_info: [{ restriction_type: 'RESTRICTED_BIZ_INITIATED_MESSAGING', expiration: '2026-12-30T00:00:00+0000' }],
          },
          '555',
        ),
      );
      await waitFor(async () => (await limitsOf(alone.id)).messagingLimit === 0, 10_000, 'the restriction on every number of the account');
      assert.equal((await limitsOf(one.id)).messagingLimit, 0);
      const refused = await sendTemplate(alone.id, '+966500100009');
      assert.equal(refused.status, 429, refused.text);
      assert.equal(refused.body.error.code, 'WhatsApp:MessagingLimitReached');
      const counted = await sendTemplate(one.id, '+966500100001');
      assert.equal(counted.status, 200, 'a recipient already counted in the 24 h can still be sent to');
      assert.equal(
        (await limitsOf(foreign.id, 'b')).messagingLimit,
        1000,
        "another workspace's channel of the same account id is untouched",
      );
      await waitFor(
        async () => qualityEvents().some((e) => e.data.event === 'ACCOUNT_RESTRICTION' && e.data.channelId === alone.id),
        10_000,
        'the event',
      );
    });

    it("a restriction is lifted by Meta's word (an ACCOUNT_RESTRICTION no longer naming it, a DISABLED_UPDATE REINSTATE) or when its expiration passes: the limits underneath come back and sends resume", async () => {
      const restricted = () =>
        corpus.accountUpdate(
          { event: 'ACCOUNT_RESTRICTION', restriction_info: [{ restriction_type: 'RESTRICTED_BIZ_INITIATED_MESSAGING' }] },
          '555',
        );
      const lifted = () => corpus.accountUpdate({ event: 'ACCOUNT_RESTRICTION', restriction_info: [] }, '555');
      const banState = (state: string) =>
        corpus.accountUpdate({ event: 'DISABLED_UPDATE', ban_info: { waba_ban_state: [state], waba_ban_date: '2026-11-28' } }, '555');
      const limitOf = async (id: string) => (await limitsOf(id)).messagingLimit as number | null;

      // Restricted by the test before this one.
      assert.equal(await limitOf(alone.id), 0);
      await notify(one.id, lifted());
      await waitFor(async () => (await limitOf(alone.id)) === 1000, 10_000, 'the restriction lifted');
      assert.equal(await limitOf(one.id), 10000, "the business's limit, as it was under the restriction");
      const resumed = await sendTemplate(alone.id, '+966500100009');
      assert.equal(resumed.status, 200, resumed.text);

      // A ban stays until Meta reinstates the account; lifting the other restriction does not lift it.
      await notify(one.id, banState('DISABLE'));
      await waitFor(async () => (await limitOf(alone.id)) === 0, 10_000, 'the ban');
      const restrictionEvents = () =>
        qualityEvents().filter((e) => e.data.event === 'ACCOUNT_RESTRICTION' && e.data.channelId === alone.id).length;
      const eventsBefore = restrictionEvents();
      await notify(one.id, restricted());
      await notify(one.id, lifted());
      await waitFor(async () => restrictionEvents() >= eventsBefore + 2, 15_000, 'both restriction events applied');
      assert.equal(await limitOf(alone.id), 0, 'still banned');
      await notify(one.id, banState('REINSTATE'));
      await waitFor(async () => (await limitOf(alone.id)) === 1000, 10_000, 'the reinstatement');

      // A restriction with an expiration ends by itself.
      const expiration = new Date(Date.now() + 3000).toISOString().replace('Z', '+0000');
      await notify(
        one.id,
        corpus.accountUpdate(
          { event: 'ACCOUNT_RESTRICTION', restriction_info: [{ restriction_type: 'RESTRICTED_BIZ_INITIATED_MESSAGING', expiration }] },
          '555',
        ),
      );
      await waitFor(async () => (await limitOf(alone.id)) === 0, 10_000, 'the restriction until its expiration');
      await waitFor(async () => (await limitOf(alone.id)) === 1000, 15_000, 'the restriction to end at its expiration');
      const afterExpiry = await sendTemplate(alone.id, '+966500100010');
      assert.equal(afterExpiry.status, 200, afterExpiry.text);
    });
    it("a channel's joining a business and the business's limit it brings are one write: when the limit cannot be stored, the channel stays out of the business", async () => {
      const joiner = await channel('a', '+14155550708', null);
      assert.equal((await fx.t.admin.put(`/admin/v1/channels/${joiner.id}/limits`, { messagingLimit: 250 })).status, 200);
      const db = new Client({ connectionString: fx.t.databaseUrl });
      await db.connect();
      try {
        await db.query(`CREATE OR REPLACE FUNCTION refuse_for_test() RETURNS trigger LANGUAGE plpgsql AS $$
                          BEGIN RAISE EXCEPTION 'refused by the test'; END $$`);
        await db.query(
          "CREATE TRIGGER refuse_for_test BEFORE INSERT ON business_limits FOR EACH ROW WHEN (NEW.business_id = 'portfolio-atomic') EXECUTE FUNCTION refuse_for_test()",
        );
        try {
          const failed = await fx.a.api.request('PATCH', `/v1/channels/${joiner.id}`, { json: { businessId: 'portfolio-atomic' } });
          assert.equal(failed.status, 500, failed.text);
        } finally {
          await db.query('DROP TRIGGER refuse_for_test ON business_limits');
        }
        const stored = await db.query('SELECT business_id FROM channels WHERE id = $1', [joiner.id]);
        assert.equal(stored.rows[0].business_id, null, 'the channel did not join a business left without a limit');
      } finally {
        await db.end();
      }
      const listed = await fx.a.api.get('/v1/channels/service-account?MaxResultCount=100');
      assert.equal(listed.body.items.find((c: Payload) => c.id === joiner.id)?.businessId, null, 'the API shows it out of the business');
      const joined = await fx.a.api.request('PATCH', `/v1/channels/${joiner.id}`, { json: { businessId: 'portfolio-atomic' } });
      assert.equal(joined.status, 200, joined.text);
      const next = await channel('a', '+14155550709', 'portfolio-atomic');
      assert.equal((await limitsOf(next.id)).messagingLimit, 250, 'the business holds the limit its first channel brought');
    });
    it("the sandbox plays Meta's phone_number_quality_update for a sandbox number: the tiers change over an operator's PUT and a channel.quality_updated event goes out; a cloud-api channel or an unknown event is a 400", async () => {
      const sandbox = await createChannel(fx.t, fx.a.workspaceId, { name: 'Sandbox tiers', phoneNumber: '+14155550710' });
      assert.equal((await fx.t.admin.put(`/admin/v1/channels/${sandbox.id}/limits`, { messagingLimit: 250 })).status, 200);
      const played = await fx.t.admin.post(`/admin/v1/channels/${sandbox.id}/sandbox/quality-update`, {
        event: 'UPGRADE',
        messagingLimit: 'TIER_10K',
        qualityRating: 'GREEN',
      });
      assert.equal(played.status, 202, played.text);
      const limits = await limitsOf(sandbox.id);
      assert.deepEqual([limits.messagingLimit, limits.setBy, limits.qualityRating], [10000, 'Meta', 'GREEN']);
      const event = await waitFor(
        async () => qualityEvents().find((e) => e.data.channelId === sandbox.id),
        10_000,
        "the sandbox number's channel.quality_updated",
      );
      assert.deepEqual(event.data, {
        channelId: sandbox.id,
        businessId: null,
        qualityRating: 'GREEN',
        throughputPerSecond: limits.throughputPerSecond,
        messagingLimit: 10000,
        event: 'UPGRADE',
      });
      const flagged = await fx.t.admin.post(`/admin/v1/channels/${sandbox.id}/sandbox/quality-update`, { event: 'FLAGGED' });
      assert.equal(flagged.status, 202, flagged.text);
      assert.equal((await limitsOf(sandbox.id)).qualityRating, 'RED');

      const cloud = await fx.t.admin.post(`/admin/v1/channels/${alone.id}/sandbox/quality-update`, { event: 'UPGRADE' });
      assert.equal(cloud.status, 400, cloud.text);
      assert.match(cloud.text, /WhatsApp:NotASandboxChannel/);
      const unknown = await fx.t.admin.post(`/admin/v1/channels/${sandbox.id}/sandbox/quality-update`, {
        event: 'PROMOTED',
        messagingLimit: 'TIER_7',
      });
      assert.equal(unknown.status, 400, unknown.text);
      assert.equal((await limitsOf(sandbox.id)).messagingLimit, 10000, 'a refused request changes nothing');
    });
  },
);
