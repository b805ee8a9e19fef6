import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import * as corpus from '../support/cloud-notifications.js';
import { describeWithApp } from '../support/describe-with-app.js';
import { FakeCloudApi, type CloudAnswer, type CloudRequest } from '../support/fake-cloud-api.js';
import { createChannel, waitFor, type WorkspaceFixture } from '../support/fixtures.js';
import type { TestApp } from '../support/test-app.js';

const APP_SECRET = 'governor-app-secret';
const NO_ID = '0190f0f0-0000-7000-8000-000000000000';
const ORDER = {
  name: 'order_shipped',
  language: 'en_US',
  category: 'UTILITY',
  status: 'APPROVED',
  components: [{ type: 'BODY', text: 'Your order has shipped.' }],
};
/**
 * The governor counts a start when the worker asks, just before the request leaves; the fake sees it
 * after a transit and an event-loop delay of its own (this process also runs the app), so gaps it
 * measures may read up to this much short of what the governor guarantees.
 */
const TRANSIT_JITTER_MS = 100;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Payload = Record<string, any>;

let phoneNumberIds = 7000;

/** A Cloud API channel on the fake, with the UTILITY template synced; returns its id and the fake's path for its sends. */
async function cloudChannel(t: TestApp, ws: WorkspaceFixture, fake: FakeCloudApi): Promise<{ id: string; sendsPath: string }> {
  const phoneNumberId = String(++phoneNumberIds);
  const created = await t.admin.post(`/admin/v1/workspaces/${ws.workspaceId}/channels`, {
    name: `Cloud WA ${phoneNumberId}`,
    type: 2,
    phoneNumber: '+14155550999',
    whatsApp: {
      provider: 'cloud-api',
      phoneNumberId,
      wabaId: '555',
      accessToken: 'EAAG-governor',
      appSecret: APP_SECRET,
      verifyToken: 'v',
    },
  });
  assert.equal(created.status, 200, created.text);
  fake.templatePages = [{ data: [ORDER] }];
  const synced = await t.admin.post(`/admin/v1/channels/${created.body.id}/templates/sync`);
  assert.equal(synced.status, 200, synced.text);
  return { id: created.body.id as string, sendsPath: `/v25.0/${phoneNumberId}/messages` };
}

describeWithApp(
  'The send governor (API.md §13): per-channel tiers, throughput, pair rate, messaging limit, back-off, calls',
  {
    peers: { fake: () => FakeCloudApi.start() },
    env: ({ fake }) => ({
      WHATSAPP_GRAPH_URL: fake.url,
      // Meta's pair rate, which the harness turns off for other features' tests.
      WHATSAPP_PAIR_RATE_INTERVAL_MS: '6000',
      RATE_LIMIT_REQUESTS_PER_MINUTE: '1000000',
      RATE_LIMIT_WHATSAPP_SENDS_PER_SECOND: '100000',
      RATE_LIMIT_IVR_CALLS_PER_SECOND: '1000',
    }),
  },
  (fx) => {
    const sendTemplate = (channelId: string, toNumber: string) =>
      fx.a.api.post('/v1/whatsapp/service-account/sendTemplate', {
        channelId,
        templateName: ORDER.name,
        language: ORDER.language,
        toNumber,
      });
    const putLimits = (channelId: string, body: Record<string, unknown>) => fx.t.admin.put(`/admin/v1/channels/${channelId}/limits`, body);
    const limitsOf = async (channelId: string, ws = fx.a) => {
      const res = await ws.api.get(`/v1/channels/${channelId}/limits`);
      assert.equal(res.status, 200, res.text);
      return res.body as Payload;
    };
    const sendsTo = (path: string) => fx.fake.sends.filter((r) => r.path === path);
    const statusOf = async (channelId: string, phone: string, eventId: string) => {
      const conversation = (await fx.a.api.post('/v2/conversations/service-account/create', { channelId, phoneNumber: phone })).body
        .conversation;
      const page = await fx.a.api.get(`/v2/conversations/service-account/${conversation.id}/timeline?MaxResultCount=100`);
      return (page.body.items as Payload[]).find((e) => e.eventId === eventId)?.status as string | undefined;
    };

    let limitsChannel: { id: string; sendsPath: string };
    before(async () => {
      limitsChannel = await cloudChannel(fx.t, fx.a, fx.fake);
    });

    it('shows the defaults (80/s, 1,000 a day on cloud-api and unlimited on sandbox, 1 call/s, 10 calls) with live figures', async () => {
      assert.deepEqual(await limitsOf(limitsChannel.id), {
        throughputPerSecond: 80,
        sentLastSecond: 0,
        messagingLimit: 1000,
        uniqueRecipients24h: 0,
        remaining24h: 1000,
        callsPerSecond: 1,
        concurrentCalls: 10,
        activeCalls: 0,
        setBy: null,
        qualityRating: null,
        businessId: null,
      });
      const sandbox = await createChannel(fx.t, fx.a.workspaceId);
      const limits = await limitsOf(sandbox.id);
      assert.equal(limits.messagingLimit, null);
      assert.equal(limits.remaining24h, null);
      assert.equal(limits.throughputPerSecond, 80);
    });

    it('lets operators set the tiers (partial, validated, behind the admin key); another workspace’s channel is a 404', async () => {
      const set = await putLimits(limitsChannel.id, { messagingLimit: 2000 });
      assert.equal(set.status, 200, set.text);
      assert.equal(set.body.messagingLimit, 2000);
      assert.equal(set.body.throughputPerSecond, 80, 'the fields left out keep their defaults');
      assert.equal(set.body.remaining24h, 2000);
      const more = await putLimits(limitsChannel.id, { throughputPerSecond: 1000, callsPerSecond: 5, concurrentCalls: 50 });
      assert.equal(more.status, 200, more.text);
      assert.deepEqual(
        [more.body.throughputPerSecond, more.body.messagingLimit, more.body.callsPerSecond, more.body.concurrentCalls],
        [1000, 2000, 5, 50],
        'an earlier PUT’s value stays',
      );
      const unlimited = await putLimits(limitsChannel.id, { messagingLimit: null });
      assert.equal(unlimited.body.messagingLimit, null);
      assert.equal(unlimited.body.remaining24h, null);
      const read = await limitsOf(limitsChannel.id);
      assert.deepEqual([read.throughputPerSecond, read.messagingLimit, read.callsPerSecond, read.concurrentCalls], [1000, null, 5, 50]);
      // The 1,000 tier (Meta's first, and the cloud-api default) is accepted.
      assert.equal((await putLimits(limitsChannel.id, { messagingLimit: 1000 })).status, 200);

      const invalid: Array<[Record<string, unknown>, string]> = [
        [{ throughputPerSecond: 0 }, 'throughputPerSecond'],
        [{ throughputPerSecond: 1001 }, 'throughputPerSecond'],
        [{ throughputPerSecond: 2.5 }, 'throughputPerSecond'],
        [{ throughputPerSecond: null }, 'throughputPerSecond'],
        [{ messagingLimit: 500 }, 'messagingLimit'],
        [{ messagingLimit: '1000' }, 'messagingLimit'],
        [{ callsPerSecond: 0 }, 'callsPerSecond'],
        [{ concurrentCalls: -1 }, 'concurrentCalls'],
      ];
      for (const [body, member] of invalid) {
        const res = await putLimits(limitsChannel.id, body);
        assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
        assert.equal(res.body.statusCode, 400);
        assert.ok(
          (res.body.error.validationErrors as Array<{ members: string[] }>).some((v) => v.members.includes(member)),
          `${JSON.stringify(body)} names ${member}: ${res.text}`,
        );
      }
      assert.equal((await limitsOf(limitsChannel.id)).throughputPerSecond, 1000, 'a refused PUT changed nothing');

      const anonymous = await fx.t.http.put(`/admin/v1/channels/${limitsChannel.id}/limits`, { throughputPerSecond: 5 });
      assert.equal(anonymous.status, 401, anonymous.text);
      const withWorkspaceToken = await fx.a.api.put(`/admin/v1/channels/${limitsChannel.id}/limits`, { throughputPerSecond: 5 });
      assert.equal(withWorkspaceToken.status, 401, withWorkspaceToken.text);
      const unknown = await putLimits(NO_ID, { throughputPerSecond: 5 });
      assert.equal(unknown.status, 404, unknown.text);
      assert.equal(unknown.body.error.code, 'Channels:ChannelNotFound');
      assert.equal((await putLimits('not-an-id', { throughputPerSecond: 5 })).status, 404);

      const foreign = await fx.b.api.get(`/v1/channels/${limitsChannel.id}/limits`);
      assert.equal(foreign.status, 404, foreign.text);
      assert.equal(foreign.body.error.code, 'Channels:ChannelNotFound');
      assert.equal((await fx.a.api.get(`/v1/channels/${NO_ID}/limits`)).status, 404);
      assert.equal((await fx.t.http.get(`/v1/channels/${limitsChannel.id}/limits`)).status, 401);
    });

    it('holds a second message to one recipient about 6 s (pair rate), while another recipient is not held', async () => {
      const channel = await cloudChannel(fx.t, fx.a, fx.fake);
      const [first, second, other] = [
        await sendTemplate(channel.id, '+966500000101'),
        await sendTemplate(channel.id, '+966500000101'),
        await sendTemplate(channel.id, '+966500000102'),
      ];
      for (const res of [first, second, other]) assert.equal(res.status, 200, res.text);
      await waitFor(async () => sendsTo(channel.sendsPath).length === 3, 30_000, 'three sends at the fake');
      const to = (number: string) => sendsTo(channel.sendsPath).filter((r) => r.body.to === number);
      const [a1, a2] = to('966500000101');
      const [b1] = to('966500000102');
      const pairGap = a2.receivedAt - a1.receivedAt;
      assert.ok(pairGap >= 6000 - TRANSIT_JITTER_MS, `the second message to one recipient came ${pairGap} ms after the first`);
      assert.ok(b1.receivedAt < a2.receivedAt, 'the other recipient went before the held message');
      assert.ok(b1.receivedAt - a1.receivedAt < 5000, `the other recipient was held ${b1.receivedAt - a1.receivedAt} ms`);
      await waitFor(
        async () => (await statusOf(channel.id, '+966500000101', second.body.conversationEventId)) === 'Sent',
        10_000,
        'the held message Sent',
      );
    });

    it('starts at most throughputPerSecond sends in any second (5/s, twenty recipients, measured by the fake)', async () => {
      const channel = await cloudChannel(fx.t, fx.a, fx.fake);
      assert.equal((await putLimits(channel.id, { throughputPerSecond: 5 })).status, 200);
      let highest = 0;
      let watching = true;
      const watcher = (async () => {
        while (watching) {
          highest = Math.max(highest, (await limitsOf(channel.id)).sentLastSecond as number);
          await sleep(100);
        }
      })();
      for (let i = 0; i < 20; i++) {
        const res = await sendTemplate(channel.id, `+9665000002${String(i).padStart(2, '0')}`);
        assert.equal(res.status, 200, res.text);
      }
      await waitFor(async () => sendsTo(channel.sendsPath).length === 20, 60_000, 'twenty sends at the fake');
      watching = false;
      await watcher;
      const times = sendsTo(channel.sendsPath)
        .map((r) => r.receivedAt)
        .sort((x, y) => x - y);
      const gaps = times.slice(5).map((t, i) => t - times[i]);
      assert.ok(
        gaps.every((gap) => gap >= 1000 - TRANSIT_JITTER_MS),
        `a 6th send came within a second of 5 others: ${JSON.stringify(gaps)} ms`,
      );
      assert.ok(times[15] - times[0] >= 3000 - TRANSIT_JITTER_MS, `twenty at five a second span three seconds: ${times[15] - times[0]} ms`);
      assert.ok(highest >= 1 && highest <= 5, `sentLastSecond peaked at ${highest}`);
    });

    it('counts received messages against the throughput, as Meta does: five received at 5/s hold the next send about a second', async () => {
      const channel = await cloudChannel(fx.t, fx.a, fx.fake);
      assert.equal((await putLimits(channel.id, { throughputPerSecond: 5 })).status, 200);
      const sender = { phone: '966500000301', name: 'Noura' };
      for (let i = 0; i < 5; i++) {
        const notification = corpus.inbound(sender, `wamid.governor-in-${i}`, corpus.content.text(`question ${i}`));
        assert.equal(await FakeCloudApi.notify(`${fx.t.baseUrl}/v1/whatsapp/webhooks/${channel.id}`, APP_SECRET, notification), 200);
      }
      const conversation = (
        await fx.a.api.post('/v2/conversations/service-account/create', { channelId: channel.id, phoneNumber: `+${sender.phone}` })
      ).body.conversation;
      await waitFor(
        async () => (await fx.a.api.get(`/v2/conversations/service-account/${conversation.id}/timeline`)).body.totalCount === 5,
        10_000,
        'the five messages recorded',
      );
      // Counted when they were recorded, at most a poll ago: the five took the next second's places (5 × 202 ms).
      const recordedBy = Date.now();
      const res = await sendTemplate(channel.id, '+966500000302');
      assert.equal(res.status, 200, res.text);
      await waitFor(async () => sendsTo(channel.sendsPath).length === 1, 10_000, 'the send at the fake');
      const waited = sendsTo(channel.sendsPath)[0].receivedAt - recordedBy;
      assert.ok(waited >= 1010 - TRANSIT_JITTER_MS - 300, `the send reached the provider ${waited} ms after the messages were recorded`);
    });

    it('refuses a template to a new recipient over the messaging limit with a 429 and writes nothing; counted recipients and those who wrote pass', async () => {
      const channel = await cloudChannel(fx.t, fx.a, fx.fake);
      assert.equal((await putLimits(channel.id, { messagingLimit: 250, throughputPerSecond: 1000 })).status, 200);
      // 260 new recipients, 26 at a time: exactly 250 are taken however the requests interleave, the others are 429s.
      const numbers = Array.from({ length: 260 }, (_, i) => `+9665003${String(i).padStart(5, '0')}`);
      const accepted: string[] = [];
      let overLimit = 0;
      for (let i = 0; i < numbers.length; i += 26) {
        const batch = numbers.slice(i, i + 26);
        const answers = await Promise.all(batch.map((n) => sendTemplate(channel.id, n)));
        answers.forEach((res, k) => {
          assert.ok(res.status === 200 || res.status === 429, res.text);
          if (res.status === 200) accepted.push(batch[k]);
          else overLimit++;
        });
      }
      assert.deepEqual([accepted.length, overLimit], [250, 10]);
      const full = await limitsOf(channel.id);
      assert.equal(full.uniqueRecipients24h, 250);
      assert.equal(full.remaining24h, 0);

      const refused = await sendTemplate(channel.id, '+966500009999');
      assert.equal(refused.status, 429, refused.text);
      assert.equal(refused.body.statusCode, 429);
      assert.equal(refused.body.error.code, 'WhatsApp:MessagingLimitReached');
      const retryAfter = Number(refused.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= 24 * 3600, `Retry-After ${refused.headers.get('retry-after')}`);
      const contacts = await fx.a.api.get('/v1/contacts?Filter=966500009999');
      assert.equal(contacts.body.totalCount, 0, 'no contact was created for the refused send');

      // A recipient already counted in the 24 h is no new conversation's recipient.
      const again = await sendTemplate(channel.id, accepted[7]);
      assert.equal(again.status, 200, again.text);
      // A customer who wrote to the channel in the last 24 h is sent to in a conversation they opened.
      const writer = '966500008888';
      const notified = await FakeCloudApi.notify(
        `${fx.t.baseUrl}/v1/whatsapp/webhooks/${channel.id}`,
        APP_SECRET,
        FakeCloudApi.inboundText(writer, 'wamid.in-governor', 'hello'),
      );
      assert.equal(notified, 200);
      await waitFor(async () => (await fx.a.api.get(`/v1/contacts?Filter=${writer}`)).body.totalCount === 1, 10_000, 'the inbound message');
      const reply = await sendTemplate(channel.id, `+${writer}`);
      assert.equal(reply.status, 200, reply.text);
      assert.equal((await limitsOf(channel.id)).uniqueRecipients24h, 250);

      // A scheduled template is counted when it leaves: accepted now, it ends Failed then, as nobody is left to answer a 429.
      const scheduled = await fx.a.api.post('/v1/whatsapp/service-account/sendTemplate', {
        channelId: channel.id,
        templateName: ORDER.name,
        language: ORDER.language,
        toNumber: '+966500007777',
        sendAt: new Date(Date.now() + 1500).toISOString(),
      });
      assert.equal(scheduled.status, 200, scheduled.text);
      assert.equal(scheduled.body.status, 'scheduled');
      const failed = await waitFor(
        async () => {
          const conversation = (
            await fx.a.api.post('/v2/conversations/service-account/create', { channelId: channel.id, phoneNumber: '+966500007777' })
          ).body.conversation;
          const page = await fx.a.api.get(`/v2/conversations/service-account/${conversation.id}/timeline`);
          const event = (page.body.items as Payload[]).find((e) => e.eventId === scheduled.body.conversationEventId);
          return event?.status === 'Failed' ? event : undefined;
        },
        20_000,
        'the scheduled template Failed',
      );
      assert.equal(failed.errorCode, 'WhatsApp:MessagingLimitReached');

      // Raised by the operator, the limit lets the next new recipient through at once.
      assert.equal((await putLimits(channel.id, { messagingLimit: 1000 })).status, 200);
      const raised = await sendTemplate(channel.id, '+966500009999');
      assert.equal(raised.status, 200, raised.text);
      assert.equal((await limitsOf(channel.id)).remaining24h, 1000 - 251);
      await waitFor(async () => sendsTo(channel.sendsPath).length === 253, 60_000, 'every accepted send at the fake');
    });

    for (const [code, answer, holdMs] of [
      [130429, FakeCloudApi.throughputReached(), 1000],
      [131056, FakeCloudApi.pairRateReached(), 6000],
    ] as Array<[number, CloudAnswer, number]>) {
      it(`retries a message Meta refused with ${code} later, and it ends Sent, not Failed`, async () => {
        const channel = await cloudChannel(fx.t, fx.a, fx.fake);
        const phone = `+9665000040${code % 100}`;
        fx.fake.script.push(answer);
        const res = await sendTemplate(channel.id, phone);
        assert.equal(res.status, 200, res.text);
        const eventId = res.body.conversationEventId as string;
        await waitFor(async () => (await statusOf(channel.id, phone, eventId)) === 'Sent', 30_000, 'the message Sent');
        const tries: CloudRequest[] = sendsTo(channel.sendsPath);
        assert.equal(tries.length, 2, 'one refused try, one that went');
        assert.equal((tries[0].answer?.body as Payload).error.code, code);
        const gap = tries[1].receivedAt - tries[0].receivedAt;
        assert.ok(gap >= holdMs - TRANSIT_JITTER_MS, `tried again ${gap} ms after Meta's ${code}`);
      });
    }

    it('halves the channel’s throughput for a while after Meta’s 130429 (4/s becomes 2/s)', async () => {
      const channel = await cloudChannel(fx.t, fx.a, fx.fake);
      assert.equal((await putLimits(channel.id, { throughputPerSecond: 4 })).status, 200);
      fx.fake.script.push(FakeCloudApi.throughputReached());
      assert.equal((await sendTemplate(channel.id, '+966500006000')).status, 200);
      await waitFor(async () => sendsTo(channel.sendsPath).length === 1, 10_000, 'the refused send');
      for (let i = 1; i <= 8; i++) assert.equal((await sendTemplate(channel.id, `+96650000600${i}`)).status, 200);
      await waitFor(async () => sendsTo(channel.sendsPath).length === 10, 30_000, 'the eight sends and the retried one');
      const times = sendsTo(channel.sendsPath)
        .filter((r) => r.body.to !== '966500006000')
        .map((r) => r.receivedAt)
        .sort((x, y) => x - y);
      const gaps = times.slice(2).map((t, i) => t - times[i]);
      assert.ok(
        gaps.every((gap) => gap >= 1000 - TRANSIT_JITTER_MS),
        `a 3rd send came within a second of 2 others after the back-off: ${JSON.stringify(gaps)} ms`,
      );
    });

    /** A sandbox voice channel whose calls ring and talk `talkMs` (pressing 1). */
    const voiceChannel = async (talkMs: number) => {
      const channel = await createChannel(fx.t, fx.a.workspaceId, {
        type: 1,
        whatsApp: undefined,
        voice: { provider: 'sandbox', fromNumber: '+14155550100', sandbox: { ringMs: 100, talkMs, pressDigits: ['1'] } },
      });
      return channel.id as string;
    };
    const placeCalls = async (channelId: string, count: number) => {
      const ids: string[] = [];
      for (let i = 0; i < count; i++) {
        const res = await fx.a.api.post('/v1/outbound-ivr', {
          channelId,
          destinationNumber: `96650000050${i}`,
          audioFileUrl: 'https://media.example.com/question.wav',
          options: [{ digit: '1', description: 'Confirm' }],
          webhookUrl: 'https://hooks.example.com/ivr',
          maxAudioRetries: 0,
        });
        assert.equal(res.status, 200, res.text);
        ids.push(res.body.id as string);
      }
      return ids;
    };
    const callsOf = async (ids: string[]) =>
      Promise.all(ids.map(async (id) => (await fx.a.api.get(`/v1/outbound-ivr/${id}`)).body as Payload));

    it('places at most callsPerSecond calls a second; the others wait, queued, and all complete', async () => {
      const channelId = await voiceChannel(0);
      assert.equal((await putLimits(channelId, { callsPerSecond: 2, concurrentCalls: 100 })).status, 200);
      const ids = await placeCalls(channelId, 6);
      const calls = await waitFor(
        async () => {
          const all = await callsOf(ids);
          return all.every((c) => c.status >= 4) ? all : undefined;
        },
        60_000,
        'six calls finished',
      );
      assert.deepEqual(
        calls.map((c) => c.status),
        Array(6).fill(4),
        'every call completed',
      );
      // initiatedAt is written after the governor counted the start, each call after its own database work
      // (the claim, the first report), which a loaded machine can stretch; without the governor the gaps are ~0.
      const PLACEMENT_JITTER_MS = 500;
      const times = calls.map((c) => Date.parse(c.initiatedAt)).sort((x, y) => x - y);
      const gaps = times.slice(2).map((t, i) => t - times[i]);
      assert.ok(
        gaps.every((gap) => gap >= 1000 - PLACEMENT_JITTER_MS),
        `a third call was placed within a second of two others: ${JSON.stringify(gaps)} ms`,
      );
      assert.ok(times[4] - times[0] >= 2000 - PLACEMENT_JITTER_MS, `six at two a second span two seconds: ${times[4] - times[0]} ms`);
    });

    it('keeps at most concurrentCalls calls in progress; the others wait, queued, and all complete', async () => {
      const channelId = await voiceChannel(700);
      assert.equal((await putLimits(channelId, { callsPerSecond: 100, concurrentCalls: 2 })).status, 200);
      const ids = await placeCalls(channelId, 5);
      let highestActive = 0;
      let highestInProgress = 0;
      const calls = await waitFor(
        async () => {
          const [all, limits] = await Promise.all([callsOf(ids), limitsOf(channelId)]);
          highestActive = Math.max(highestActive, limits.activeCalls as number);
          highestInProgress = Math.max(highestInProgress, all.filter((c) => c.status >= 1 && c.status <= 3).length);
          return all.every((c) => c.status >= 4) ? all : undefined;
        },
        90_000,
        'five calls finished',
      );
      assert.deepEqual(
        calls.map((c) => c.status),
        Array(5).fill(4),
        'every call completed',
      );
      assert.ok(highestInProgress >= 1 && highestInProgress <= 2, `${highestInProgress} calls were in progress at once`);
      assert.ok(highestActive >= 1 && highestActive <= 2, `activeCalls peaked at ${highestActive}`);
      assert.equal((await limitsOf(channelId)).activeCalls, 0, 'every place was given back');
      // Two at a time, five calls of at least minMs each take at least 2.5 × minMs from the first start to the last end.
      const starts = calls.map((c) => Date.parse(c.initiatedAt));
      const ends = calls.map((c) => Date.parse(c.completedAt));
      const minMs = Math.min(...calls.map((c, i) => ends[i] - starts[i]));
      const span = Math.max(...ends) - Math.min(...starts);
      assert.ok(minMs >= 700, `a call lasted ${minMs} ms`);
      assert.ok(span >= 2.5 * minMs, `five calls of ${minMs} ms, two at a time, took ${span} ms`);
    });
  },
);
