import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { DataSource } from 'typeorm';
import { OutboxMessage } from '../../src/queue/outbox-message.entity.js';
import { JobName, QUEUE_OF_JOB } from '../../src/queue/queue-names.js';
import { approvedTemplate, createCloudChannel } from '../support/cloud-channel.js';
import { describeWithApp } from '../support/describe-with-app.js';
import { FakeCloudApi } from '../support/fake-cloud-api.js';
import { createChannel, createWorkspace, waitFor, type WorkspaceFixture } from '../support/fixtures.js';
import { quietAroundNow } from '../support/quiet-hours.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const TOKEN = 'EAAG-scheduling-token';
const NO_ID = '0190f0f0-0000-7000-8000-000000000000';
const MINUTE = 60_000;

type Payload = Record<string, any>;

const SALE = approvedTemplate('winter_sale', 'MARKETING', 'Our winter sale starts today.');
const ORDER = approvedTemplate('order_shipped', 'UTILITY', 'Your order has shipped.');

const withOffset = (at: Date) => `${at.toISOString().slice(0, -1)}+00:00`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A Cloud API channel (on the fake) with the two templates, in workspace `ws`. */
const cloudChannel = async (t: TestApp, ws: WorkspaceFixture, fake: FakeCloudApi, phoneNumberId: string) =>
  (await createCloudChannel(t, ws.workspaceId, fake, { phoneNumberId, accessToken: TOKEN, templates: [SALE, ORDER] })).id;

describeWithApp(
  'Send policy (API.md §13): quiet hours in the contact time zone, sendAt, cancellation, frequency cap',
  {
    peers: { fake: () => FakeCloudApi.start({ acceptedTokens: [TOKEN] }), receiver: () => WebhookReceiver.start() },
    env: (peers) => ({
      WHATSAPP_GRAPH_URL: peers.fake.url,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      RATE_LIMIT_REQUESTS_PER_MINUTE: '1000000',
      RATE_LIMIT_IVR_CALLS_PER_SECOND: '1000',
      // Dispatched jobs still unfinished this long after they were due are looked up in Redis (and pushed again if lost).
      OUTBOX_RECOVER_AFTER_MS: '1000',
    }),
  },
  (fx) => {
    let cloud: string;
    let voice: string;
    let seq = 0;
    /** A fresh Saudi mobile number (digits, as Meta writes them). */
    const saudi = () => `9665012${String(10000 + ++seq).slice(-5)}`;
    /** A fresh US (New York area) number. */
    const american = () => `1212555${String(10000 + ++seq).slice(-4)}`;

    const putPolicy = async (body: unknown, ws = fx.a) => {
      const res = await ws.api.put('/v1/send-policy', body);
      assert.equal(res.status, 200, res.text);
      return res.body as Payload;
    };
    const resetPolicy = () => putPolicy({ quietHours: null, timezone: null, frequencyCap: null });
    const sendTemplate = (name: string, toNumber: string, extra: Record<string, unknown> = {}, ws = fx.a) =>
      ws.api.post('/v1/whatsapp/service-account/sendTemplate', {
        ChannelId: cloud,
        TemplateName: name,
        Language: 'en_US',
        ToNumber: toNumber,
        ...extra,
      });
    const call = (destinationNumber: string, extra: Record<string, unknown> = {}, ws = fx.a) =>
      ws.api.post('/v1/outbound-ivr', {
        channelId: voice,
        destinationNumber,
        ttsText: 'Press 1 to confirm your appointment.',
        options: [{ digit: '1', description: 'Confirm' }],
        webhookUrl: fx.receiver.url(`/ivr/${++seq}`),
        ...extra,
      });
    const assert400 = (res: { status: number; text: string; body: Payload }, code: string, member?: string) => {
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error.code, code, res.text);
      if (member)
        assert.ok(
          (res.body.error.validationErrors as Payload[]).some((e) => e.members.includes(member)),
          res.text,
        );
    };

    before(async () => {
      cloud = await cloudChannel(fx.t, fx.a, fx.fake, '106540352242922');
      const channel = await createChannel(fx.t, fx.a.workspaceId, {
        name: 'Voice',
        type: 1,
        whatsApp: undefined,
        voice: { provider: 'sandbox', fromNumber: '+14155550100', sandbox: { ringMs: 0, talkMs: 0 } },
      });
      voice = channel.id;
    });

    it('GET has the defaults; PUT sets quiet hours, time zone and cap, partially; null clears a part; bad input is a 400 that changes nothing', async () => {
      const initial = await fx.a.api.get('/v1/send-policy');
      assert.equal(initial.status, 200, initial.text);
      assert.deepEqual(
        { quietHours: initial.body.quietHours, timezone: initial.body.timezone, frequencyCap: initial.body.frequencyCap },
        { quietHours: null, timezone: { fromPhoneNumber: true, property: null, default: 'Asia/Riyadh' }, frequencyCap: null },
      );

      const zoneProperty = await fx.a.api.post('/v1/contact-property-definitions', { name: 'Zone for policy test', type: 'Text' });
      assert.equal(zoneProperty.status, 200, zoneProperty.text);
      const set = await putPolicy({
        quietHours: { start: '21:00', end: '09:00' },
        timezone: { property: zoneProperty.body.id, default: 'Africa/Cairo' },
        frequencyCap: { marketingPerDays: { count: 3, days: 7 } },
      });
      assert.deepEqual(set.quietHours, { start: '21:00', end: '09:00', appliesTo: ['Marketing', 'Calls'] }, 'appliesTo defaults to both');
      assert.deepEqual(set.timezone, { fromPhoneNumber: true, property: zoneProperty.body.id, default: 'Africa/Cairo' });
      assert.deepEqual(set.frequencyCap, { marketingPerDays: { count: 3, days: 7 } });
      assert.deepEqual(set.stopWords, initial.body.stopWords, 'stop words untouched');

      // Partial: only the part sent changes.
      const partial = await putPolicy({ QuietHours: { Start: '22:30', End: '07:00', AppliesTo: ['Calls'] } });
      assert.deepEqual(partial.quietHours, { start: '22:30', end: '07:00', appliesTo: ['Calls'] });
      assert.deepEqual(partial.frequencyCap, set.frequencyCap);
      assert.deepEqual(partial.timezone, set.timezone);

      const numberProperty = await fx.a.api.post('/v1/contact-property-definitions', { name: 'Score for policy test', type: 'Number' });
      assert.equal(numberProperty.status, 200, numberProperty.text);
      const otherWorkspaceProperty = await fx.b.api.post('/v1/contact-property-definitions', { name: 'B zone', type: 'Text' });
      assert.equal(otherWorkspaceProperty.status, 200, otherWorkspaceProperty.text);
      const bad: Array<[unknown, string]> = [
        [{ quietHours: { start: '24:00', end: '09:00' } }, 'quietHours.start'],
        [{ quietHours: { start: '9:00', end: '10:00' } }, 'quietHours.start'],
        [{ quietHours: { start: '21:00', end: '21:00' } }, 'quietHours.end'],
        [{ quietHours: { start: '21:00', end: '09:00', appliesTo: ['Email'] } }, 'quietHours.appliesTo'],
        [{ quietHours: { start: '21:00' } }, 'quietHours.end'],
        [{ timezone: { default: 'Mars/Olympus_Mons' } }, 'timezone.default'],
        [{ timezone: { property: NO_ID } }, 'timezone.property'],
        [{ timezone: { property: otherWorkspaceProperty.body.id } }, 'timezone.property'],
        [{ timezone: { property: numberProperty.body.id } }, 'timezone.property'],
        [{ timezone: { fromPhoneNumber: 'yes' } }, 'timezone.fromPhoneNumber'],
        [{ frequencyCap: { marketingPerDays: { count: 0, days: 7 } } }, 'frequencyCap.marketingPerDays.count'],
        [{ frequencyCap: { marketingPerDays: { count: 2, days: 1.5 } } }, 'frequencyCap.marketingPerDays.days'],
        [{ frequencyCap: { count: 2, days: 7 } }, 'frequencyCap.marketingPerDays'],
      ];
      for (const [body, member] of bad) {
        const res = await fx.a.api.put('/v1/send-policy', { frequencyCap: null, ...(body as object) });
        assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
        const members = (res.body.error.validationErrors as Payload[]).flatMap((e) => e.members as string[]);
        assert.ok(
          members.some((m) => m === member || m.startsWith(`${member}.`)),
          `${JSON.stringify(body)} names ${member}: ${res.text}`,
        );
      }
      assert.deepEqual((await fx.a.api.get('/v1/send-policy')).body, partial, 'no rejected PUT changed anything');

      const cleared = await putPolicy({ quietHours: null, timezone: null, frequencyCap: null });
      assert.deepEqual(
        { quietHours: cleared.quietHours, timezone: cleared.timezone, frequencyCap: cleared.frequencyCap },
        { quietHours: null, timezone: { fromPhoneNumber: true, property: null, default: 'Asia/Riyadh' }, frequencyCap: null },
      );
      // Workspace B's policy is its own.
      assert.equal((await fx.b.api.get('/v1/send-policy')).body.quietHours, null);
    });

    it('quiet hours from the number: a MARKETING template to a Saudi number waits for the end of the quiet period in Asia/Riyadh; a US number and a UTILITY template go at once', async () => {
      await resetPolicy();
      const { quietHours, endsAt } = quietAroundNow('Asia/Riyadh', ['Marketing']);
      await putPolicy({ quietHours });
      const held = saudi();
      const newYorker = american();

      const marketing = await sendTemplate(SALE.name, held);
      assert.equal(marketing.status, 200, marketing.text);
      assert.equal(marketing.body.status, 'scheduled');
      assert.equal(marketing.body.scheduledFor, endsAt.toISOString(), 'the end of the quiet period in Riyadh');
      assert.match(marketing.body.message, /scheduled for/);

      const utility = await sendTemplate(ORDER.name, held);
      assert.equal(utility.status, 200, utility.text);
      assert.equal(utility.body.status, 'accepted');
      assert.deepEqual(
        Object.keys(utility.body).sort(),
        ['contactId', 'conversationEventId', 'message', 'status'],
        "the specification's answer",
      );

      // New York is 8 hours behind Riyadh: outside the quiet period there.
      const elsewhere = await sendTemplate(SALE.name, newYorker);
      assert.equal(elsewhere.status, 200, elsewhere.text);
      assert.equal(elsewhere.body.status, 'accepted');

      await waitFor(async () => fx.fake.sendsTo(newYorker).length === 1, 10_000, 'the New York marketing send');
      await waitFor(async () => fx.fake.sendsTo(held).length >= 1, 10_000, 'the utility send');
      await sleep(500);
      const sentToHeld = fx.fake.sendsTo(held).map((r) => (r.body as Payload).template.name);
      assert.deepEqual(sentToHeld, [ORDER.name], 'only the utility template left; the marketing one waits');

      // The held message can be cancelled before it leaves.
      const cancelled = await fx.a.api.delete(`/v1/scheduled/${marketing.body.conversationEventId}`);
      assert.equal(cancelled.status, 204, cancelled.text);
    });

    it('quiet hours from a contact property: the zone the contact holds wins over its number; the default when nothing tells', async () => {
      await resetPolicy();
      const property = await fx.a.api.post('/v1/contact-property-definitions', { name: 'Time zone', type: 'Text' });
      assert.equal(property.status, 200, property.text);
      const { quietHours, endsAt } = quietAroundNow('America/Los_Angeles', ['Marketing', 'Calls']);
      await putPolicy({ quietHours, timezone: { property: property.body.id } });

      const inLosAngeles = saudi();
      const contact = await fx.a.api.post('/v1/contacts', { name: 'Lives in LA', phoneNumber: `+${inLosAngeles}` });
      assert.equal(contact.status, 200, contact.text);
      const value = await fx.a.api.put(`/v1/contacts/${contact.body.id}/properties/${property.body.id}`, { value: 'America/Los_Angeles' });
      assert.equal(value.status, 200, value.text);
      const inRiyadh = saudi();

      const byProperty = await sendTemplate(SALE.name, inLosAngeles);
      assert.equal(byProperty.status, 200, byProperty.text);
      assert.equal(byProperty.body.status, 'scheduled');
      assert.equal(byProperty.body.scheduledFor, endsAt.toISOString(), 'the end of the quiet period in Los Angeles');
      const byContactId = await fx.a.api.post('/v1/whatsapp/service-account/sendTemplate', {
        channelId: cloud,
        templateName: SALE.name,
        language: 'en_US',
        contactId: contact.body.id,
      });
      assert.equal(byContactId.body.scheduledFor, endsAt.toISOString(), 'the same, the contact named by id');

      const byNumber = await sendTemplate(SALE.name, inRiyadh);
      assert.equal(byNumber.status, 200, byNumber.text);
      assert.equal(byNumber.body.status, 'accepted', 'Riyadh (from the number) is 11 hours ahead of Los Angeles: not quiet');

      // A call to the LA contact is held the same way (Calls), answered as its record with status 0 and scheduledFor.
      const held = await call(`+${inLosAngeles}`);
      assert.equal(held.status, 200, held.text);
      assert.equal(held.body.status, 0);
      assert.equal(held.body.scheduledFor, withOffset(endsAt));
      assert.equal((await fx.a.api.get(`/v1/outbound-ivr/${held.body.id}`)).body.scheduledFor, withOffset(endsAt));

      // With the number's country turned off and a default zone, a contact without the property follows the default.
      const { quietHours: quietInTokyo, endsAt: tokyoEnd } = quietAroundNow('Asia/Tokyo');
      await putPolicy({
        quietHours: quietInTokyo,
        timezone: { property: property.body.id, fromPhoneNumber: false, default: 'Asia/Tokyo' },
      });
      const byDefault = await sendTemplate(SALE.name, saudi());
      assert.equal(byDefault.body.scheduledFor, tokyoEnd.toISOString(), 'the default zone');

      for (const id of [
        byProperty.body.conversationEventId,
        byContactId.body.conversationEventId,
        byDefault.body.conversationEventId,
        held.body.id,
      ]) {
        assert.equal((await fx.a.api.delete(`/v1/scheduled/${id}`)).status, 204);
      }
      await sleep(300);
      assert.equal(fx.fake.sendsTo(inLosAngeles).length, 0, 'nothing reached the LA contact');
    });

    it('a call in quiet hours is held and not placed; cancelled, it ends 8 Cancelled and a second cancel is a 409; quiet hours for Marketing only do not hold calls', async () => {
      await resetPolicy();
      const { quietHours, endsAt } = quietAroundNow('Asia/Riyadh', ['Calls']);
      await putPolicy({ quietHours });
      const number = saudi();
      const held = await call(number);
      assert.equal(held.status, 200, held.text);
      assert.equal(held.body.status, 0);
      assert.equal(held.body.scheduledFor, withOffset(endsAt));
      await sleep(1500);
      const waiting = await fx.a.api.get(`/v1/outbound-ivr/${held.body.id}`);
      assert.equal(waiting.body.status, 0, 'not placed');
      assert.equal(waiting.body.initiatedAt, null);

      assert.equal((await fx.b.api.delete(`/v1/scheduled/${held.body.id}`)).status, 404, "another workspace's call is a 404");
      const cancelled = await fx.a.api.delete(`/v1/scheduled/${held.body.id}`);
      assert.equal(cancelled.status, 204, cancelled.text);
      const after = await fx.a.api.get(`/v1/outbound-ivr/${held.body.id}`);
      assert.equal(after.body.status, 8, 'Cancelled');
      const again = await fx.a.api.delete(`/v1/scheduled/${held.body.id}`);
      assert.equal(again.status, 409, again.text);
      assert.equal(again.body.error.code, 'Policy:ScheduledItemNotCancellable');

      await putPolicy({ quietHours: { ...quietHours, appliesTo: ['Marketing'] } });
      const notHeld = await call(saudi());
      assert.equal(notHeld.status, 200, notHeld.text);
      assert.equal(notHeld.body.scheduledFor, null);
      const done = await waitFor(
        async () => {
          const res = await fx.a.api.get(`/v1/outbound-ivr/${notHeld.body.id}`);
          return res.body.status >= 4 ? res.body : null;
        },
        15_000,
        'the unheld call to finish',
      );
      assert.notEqual(done.status, 8);
      // An immediate call that has ended cannot be cancelled as a scheduled one.
      assert.equal((await fx.a.api.delete(`/v1/scheduled/${notHeld.body.id}`)).status, 409);
    });

    it('sendAt: a template sent a couple of seconds ahead reaches the provider once, at that time; a call with sendAt is placed after it', async () => {
      await resetPolicy();
      const number = saudi();
      const sendAt = new Date(Date.now() + 2500);
      const res = await sendTemplate(ORDER.name, number, { sendAt: sendAt.toISOString() });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.status, 'scheduled');
      assert.equal(res.body.scheduledFor, sendAt.toISOString());

      const callAt = new Date(Date.now() + 2500);
      const scheduledCall = await call(`+${saudi()}`, { sendAt: callAt.toISOString() });
      assert.equal(scheduledCall.status, 200, scheduledCall.text);
      assert.equal(scheduledCall.body.status, 0);
      assert.equal(scheduledCall.body.scheduledFor, withOffset(callAt));

      await sleep(1000);
      assert.equal(fx.fake.sendsTo(number).length, 0, 'not before sendAt');
      const [sent] = await waitFor(async () => (fx.fake.sendsTo(number).length > 0 ? fx.fake.sendsTo(number) : null), 15_000, 'the send');
      assert.ok(sent.receivedAt >= sendAt.getTime(), `received ${sent.receivedAt - sendAt.getTime()} ms after sendAt`);
      assert.ok(sent.receivedAt < sendAt.getTime() + 5000, `received ${sent.receivedAt - sendAt.getTime()} ms after sendAt`);
      await sleep(2000);
      assert.equal(fx.fake.sendsTo(number).length, 1, 'exactly once');
      const cancelAfter = await fx.a.api.delete(`/v1/scheduled/${res.body.conversationEventId}`);
      assert.equal(cancelAfter.status, 409, 'it has left: too late to cancel');

      const placed = await waitFor(
        async () => {
          const r = await fx.a.api.get(`/v1/outbound-ivr/${scheduledCall.body.id}`);
          return r.body.initiatedAt ? r.body : null;
        },
        15_000,
        'the scheduled call to be placed',
      );
      assert.ok(
        Date.parse(placed.initiatedAt) >= callAt.getTime(),
        `placed ${Date.parse(placed.initiatedAt) - callAt.getTime()} ms after sendAt`,
      );
    });

    it('a scheduled send whose delayed job Redis lost is pushed again from the outbox once due, and sent once', async () => {
      await resetPolicy();
      const number = saudi();
      const sendAt = new Date(Date.now() + 2500);
      const res = await sendTemplate(ORDER.name, number, { sendAt: sendAt.toISOString() });
      assert.equal(res.status, 200, res.text);
      const dataSource = fx.t.app.get(DataSource);
      const row = await waitFor(
        () =>
          dataSource
            .getRepository(OutboxMessage)
            .createQueryBuilder('o')
            .where(`o.payload->>'eventId' = :id AND o.dispatched_at IS NOT NULL`, { id: res.body.conversationEventId })
            .getOne(),
        5_000,
        'the outbox row dispatched',
      );
      assert.equal(row.runAt?.toISOString(), sendAt.toISOString(), 'the row keeps when it is due');
      const queue = fx.t.app.get<Queue>(getQueueToken(QUEUE_OF_JOB[JobName.SendWhatsAppMessage]), { strict: false });
      const job = await queue.getJob(row.id);
      assert.ok(job && (await job.isDelayed()), 'waiting in Redis as a delayed job');
      await job.remove(); // what a Redis restart without persistence does to it

      const [sent] = await waitFor(async () => (fx.fake.sendsTo(number).length > 0 ? fx.fake.sendsTo(number) : null), 20_000, 'the send');
      assert.ok(sent.receivedAt >= sendAt.getTime());
      await sleep(2500);
      assert.equal(fx.fake.sendsTo(number).length, 1, 'exactly once');
    });

    it('cancelling before it leaves: the provider never receives it; unknown, malformed and other-workspace ids are 404s', async () => {
      await resetPolicy();
      const number = saudi();
      const res = await sendTemplate(ORDER.name, number, { sendAt: new Date(Date.now() + 2000).toISOString() });
      assert.equal(res.status, 200, res.text);
      const id = res.body.conversationEventId as string;

      const foreign = await fx.b.api.delete(`/v1/scheduled/${id}`);
      assert.equal(foreign.status, 404, foreign.text);
      assert.equal(foreign.body.error.code, 'Policy:ScheduledItemNotFound');
      assert.equal((await fx.a.api.delete(`/v1/scheduled/${NO_ID}`)).status, 404);
      assert.equal((await fx.a.api.delete('/v1/scheduled/not-an-id')).status, 404);

      const cancelled = await fx.a.api.delete(`/v1/scheduled/${id}`);
      assert.equal(cancelled.status, 204, cancelled.text);
      await sleep(3500);
      assert.equal(fx.fake.sendsTo(number).length, 0, 'never sent');
      const again = await fx.a.api.delete(`/v1/scheduled/${id}`);
      assert.equal(again.status, 409, again.text);
      assert.match(again.body.error.message, /cancelled already/);
    });

    it('sendAt must be a future time at most 30 days ahead: otherwise a 400 naming sendAt, and nothing is sent or called', async () => {
      await resetPolicy();
      const number = saudi();
      const cases = [
        new Date(Date.now() - MINUTE).toISOString(),
        new Date(Date.now() + 31 * 24 * 60 * MINUTE).toISOString(),
        'tomorrow',
        '2026-02-30T10:00:00Z',
      ];
      for (const sendAt of cases) {
        const template = await sendTemplate(ORDER.name, number, { sendAt });
        assert.equal(template.status, 400, template.text);
        assert.ok(
          (template.body.error.validationErrors as Payload[]).some((e) => e.members.includes('sendAt')),
          template.text,
        );
        const text = await fx.a.api.post('/v1/whatsapp/service-account/sendText', {
          channelId: cloud,
          toNumber: number,
          text: 'hi',
          sendAt,
        });
        assert.equal(text.status, 400, text.text);
        assert.ok(
          (text.body.error.validationErrors as Payload[]).some((e) => e.members.includes('sendAt')),
          text.text,
        );
        const ivr = await call(number, { sendAt });
        assert.equal(ivr.status, 400, ivr.text);
        assert.ok(
          (ivr.body.error.validationErrors as Payload[]).some((e) => e.members.includes('sendAt')),
          ivr.text,
        );
      }
      assert400(await sendTemplate(ORDER.name, number, { sendAt: cases[0] }), 'Policy:InvalidSendAt', 'sendAt');
      assert400(await call(number, { sendAt: cases[1] }), 'Policy:InvalidSendAt', 'sendAt');
      await sleep(300);
      assert.equal(fx.fake.sendsTo(number).length, 0);
      const calls = await fx.a.api.get(`/v1/outbound-ivr?MaxResultCount=1000`);
      assert.ok(!(calls.body.items as Payload[]).some((c) => c.destinationNumber === `+${number}`), 'no call recorded');
    });

    it('frequency cap: a MARKETING template beyond count in days to one contact is a 400 Policy:FrequencyCapReached; UTILITY and other contacts pass', async () => {
      await resetPolicy();
      await putPolicy({ frequencyCap: { marketingPerDays: { count: 2, days: 1 } } });
      const number = saudi();
      for (let i = 0; i < 2; i++) {
        const ok = await sendTemplate(SALE.name, number);
        assert.equal(ok.status, 200, ok.text);
      }
      const third = await sendTemplate(SALE.name, number);
      assert400(third, 'Policy:FrequencyCapReached');
      const contact = (await fx.a.api.get(`/v1/contacts?PhoneNumber=${number}`)).body.items[0] as Payload;
      const byId = await fx.a.api.post('/v1/whatsapp/service-account/sendTemplate', {
        channelId: cloud,
        templateName: SALE.name,
        language: 'en_US',
        contactId: contact.id,
      });
      assert400(byId, 'Policy:FrequencyCapReached');
      const utility = await sendTemplate(ORDER.name, number);
      assert.equal(utility.status, 200, utility.text);
      const other = await sendTemplate(SALE.name, saudi());
      assert.equal(other.status, 200, other.text);

      // A cancelled scheduled marketing message does not count.
      const capOfOne = saudi();
      await putPolicy({ frequencyCap: { marketingPerDays: { count: 1, days: 1 } } });
      const scheduled = await sendTemplate(SALE.name, capOfOne, { sendAt: new Date(Date.now() + 60 * MINUTE).toISOString() });
      assert.equal(scheduled.status, 200, scheduled.text);
      assert400(await sendTemplate(SALE.name, capOfOne), 'Policy:FrequencyCapReached');
      assert.equal((await fx.a.api.delete(`/v1/scheduled/${scheduled.body.conversationEventId}`)).status, 204);
      assert.equal((await sendTemplate(SALE.name, capOfOne)).status, 200);

      await waitFor(async () => fx.fake.sendsTo(number).length === 3, 10_000, 'the two marketing and one utility sends');
      await resetPolicy();
    });

    it('frequency cap: of marketing sends to one contact at the same moment, only as many as the cap allows are accepted', async () => {
      await resetPolicy();
      await putPolicy({ frequencyCap: { marketingPerDays: { count: 2, days: 1 } } });
      const number = saudi();
      // The contact exists first (an open conversation), so the sends race on the count alone.
      assert.equal((await sendTemplate(ORDER.name, number)).status, 200);
      const answers = await Promise.all(Array.from({ length: 8 }, () => sendTemplate(SALE.name, number)));
      const statuses = answers.map((res) => res.status).sort();
      assert.deepEqual(statuses, [200, 200, 400, 400, 400, 400, 400, 400], answers.map((res) => res.text).join('\n'));
      for (const refused of answers.filter((res) => res.status === 400)) assert400(refused, 'Policy:FrequencyCapReached');
      await waitFor(async () => fx.fake.sendsTo(number).length === 3, 10_000, 'the utility and the two marketing sends');
      await sleep(300);
      assert.equal(fx.fake.sendsTo(number).length, 3, 'no more than the cap left');
      await resetPolicy();
    });
  },
);

describe('Send policy: a scheduled send survives a restart and fires once', () => {
  let first: TestApp | undefined;
  let second: TestApp | undefined;
  let fake: FakeCloudApi;

  before(async () => {
    fake = await FakeCloudApi.start({ acceptedTokens: [TOKEN] });
  });
  after(async () => {
    await first?.app.close().catch(() => undefined);
    await second?.close();
    await fake?.close();
  });

  it('sent with sendAt, the app closed before it is due and a new one booted on the same database and Redis: the provider receives it once', async () => {
    const env = { WHATSAPP_GRAPH_URL: fake.url, RATE_LIMIT_REQUESTS_PER_MINUTE: '1000000' };
    first = await startTestApp(env);
    // What the second process must share with the first: the database, the Redis prefix, the key sealing channel credentials.
    const shared = {
      DATABASE_URL: first.databaseUrl,
      REDIS_KEY_PREFIX: first.redisPrefix,
      ENCRYPTION_KEY: process.env.ENCRYPTION_KEY!,
      JWT_SECRET: process.env.JWT_SECRET!,
    };
    const ws = await createWorkspace(first, 'Restart');
    const channel = await cloudChannel(first, ws, fake, '106540352249999');
    const number = '966501299999';
    const sendAt = new Date(Date.now() + 4000);
    const res = await ws.api.post('/v1/whatsapp/service-account/sendTemplate', {
      channelId: channel,
      templateName: ORDER.name,
      language: 'en_US',
      toNumber: number,
      sendAt: sendAt.toISOString(),
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'scheduled');
    await first.app.close();
    first = undefined;
    assert.ok(Date.now() < sendAt.getTime(), 'closed before it was due');

    second = await startTestApp({ ...env, ...shared });
    const [sent] = await waitFor(
      async () => (fake.sendsTo(number).length > 0 ? fake.sendsTo(number) : null),
      20_000,
      'the send after restart',
    );
    assert.ok(sent.receivedAt >= sendAt.getTime());
    await sleep(2000);
    assert.equal(fake.sendsTo(number).length, 1, 'exactly once');
  });
});
