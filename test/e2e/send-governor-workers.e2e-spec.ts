import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeWithApp } from '../support/describe-with-app.js';
import { FakeCloudApi } from '../support/fake-cloud-api.js';
import { approvedTemplate } from '../support/cloud-channel.js';
import { waitFor } from '../support/fixtures.js';
import { startWorker, stopWorkers, type WorkerProcess } from '../support/worker-process.js';

const TOKEN = 'EAAG-two-workers';
const PHONE_NUMBER_ID = '7300001';
const SENDS = 30;
const PER_SECOND = 5;
/** The governor counts a start at the worker; a fake sees it after a transit of its own, so its gaps may read this much short. */
const TRANSIT_JITTER_MS = 100;
const ORDER = approvedTemplate('order_shipped', 'UTILITY', 'Your order has shipped.');

const workers: WorkerProcess[] = [];

/**
 * Each worker sends to a fake of its own, so the two fakes together show what the channel got and
 * each one shows that its worker took part: the governor's count lives in Redis, not in a process.
 */
describeWithApp(
  'The send governor with two worker processes: the channel’s throughput holds across them (API.md §13)',
  {
    peers: {
      fakeA: () => FakeCloudApi.start(),
      fakeB: () => FakeCloudApi.start(),
    },
    // The app under test serves the API only (and syncs templates from fake A); the sends run in the two workers.
    env: ({ fakeA }) => ({
      APP_ROLE: 'api',
      WHATSAPP_GRAPH_URL: fakeA.url,
      RATE_LIMIT_REQUESTS_PER_MINUTE: '1000000',
      RATE_LIMIT_WHATSAPP_SENDS_PER_SECOND: '100000',
    }),
    workspaces: 1,
    beforeClose: () => stopWorkers(workers),
  },
  (fx) => {
    it(`starts at most ${PER_SECOND} sends in any second on one channel while both workers send (${SENDS} recipients, measured by the fakes)`, async () => {
      for (const fake of [fx.fakeA, fx.fakeB]) fake.acceptedTokens = [TOKEN];
      fx.fakeA.templatePages = [{ data: [ORDER] }];
      const created = await fx.t.admin.post(`/admin/v1/workspaces/${fx.a.workspaceId}/channels`, {
        name: 'Two workers',
        type: 2,
        phoneNumber: '+14155550998',
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
      const channelId = created.body.id as string;
      assert.equal((await fx.t.admin.post(`/admin/v1/channels/${channelId}/templates/sync`)).status, 200);
      const limits = await fx.t.admin.put(`/admin/v1/channels/${channelId}/limits`, { throughputPerSecond: PER_SECOND });
      assert.equal(limits.status, 200, limits.text);

      workers.push(startWorker({ WHATSAPP_GRAPH_URL: fx.fakeA.url }), startWorker({ WHATSAPP_GRAPH_URL: fx.fakeB.url }));
      for (const worker of workers) await waitFor(async () => /Worker started/.test(worker.output()), 60_000, 'a worker to start');

      for (let i = 0; i < SENDS; i++) {
        const res = await fx.a.api.post('/v1/whatsapp/service-account/sendTemplate', {
          channelId,
          templateName: ORDER.name,
          language: ORDER.language,
          toNumber: `+9665000003${String(i).padStart(2, '0')}`,
        });
        assert.equal(res.status, 200, res.text);
      }
      const path = `/v25.0/${PHONE_NUMBER_ID}/messages`;
      const sendsAt = (fake: FakeCloudApi) => fake.sends.filter((r) => r.path === path);
      await waitFor(async () => sendsAt(fx.fakeA).length + sendsAt(fx.fakeB).length >= SENDS, 60_000, `${SENDS} sends at the fakes`);

      const [byA, byB] = [sendsAt(fx.fakeA), sendsAt(fx.fakeB)];
      assert.ok(byA.length > 0 && byB.length > 0, `both workers sent: ${byA.length} and ${byB.length}`);
      const recipients = [...byA, ...byB].map((r) => (r.body as { to?: string }).to);
      assert.equal(new Set(recipients).size, SENDS, 'each recipient once');
      const times = [...byA, ...byB].map((r) => r.receivedAt).sort((x, y) => x - y);
      const gaps = times.slice(PER_SECOND).map((t, i) => t - times[i]);
      assert.ok(
        gaps.every((gap) => gap >= 1000 - TRANSIT_JITTER_MS),
        `a send came within a second of ${PER_SECOND} others: ${JSON.stringify(gaps)} ms`,
      );
      const spanOf = SENDS - PER_SECOND;
      assert.ok(
        times[spanOf] - times[0] >= (spanOf / PER_SECOND) * 1000 - TRANSIT_JITTER_MS,
        `${SENDS} at ${PER_SECOND}/s span ${spanOf / PER_SECOND} s: ${times[spanOf] - times[0]} ms`,
      );
    });
  },
);
