import assert from 'node:assert/strict';
import { it } from 'node:test';
import { approvedTemplate, createCloudChannel } from '../support/cloud-channel.js';
import { describeWithApp } from '../support/describe-with-app.js';
import { FakeCloudApi } from '../support/fake-cloud-api.js';
import { waitFor } from '../support/fixtures.js';
import { readinessBecomes } from '../support/readiness.js';
import { ScratchRedis } from '../support/redis-server.js';
import { assertAcceptedSentOnce, SendLoad } from '../support/send-load.js';

const TOKEN = 'EAAG-redis-restart-token';
const ORDER = approvedTemplate('order_packed', 'UTILITY', 'Your order is packed.');
const LOAD_CLIENTS = 4;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Redis (queues, rate limits, the send governor, shared caches) restarted while Send Template
 * requests keep coming: a private redis-server on another port, stopped and started again, without
 * persistence, so the restarted server is empty as after a failover to a fresh replica.
 */
describeWithApp(
  'Redis restarted under load: readiness 503 while it is down, requests answered fast, nothing accepted is lost, recovery without a restart',
  {
    peers: { redis: () => ScratchRedis.start(), fake: () => FakeCloudApi.start({ acceptedTokens: [TOKEN] }) },
    env: ({ redis, fake }) => ({
      REDIS_URL: redis.url,
      WHATSAPP_GRAPH_URL: fake.url,
      RATE_LIMIT_REQUESTS_PER_MINUTE: '1000000',
      RATE_LIMIT_WHATSAPP_SENDS_PER_SECOND: '100000',
    }),
    workspaces: 1,
    // A test that failed while the server was down still lets the app close against a running one.
    beforeClose: ({ redis }) => redis.start(),
  },
  (fx) => {
    it('reports Redis down on /health/ready, answers each send within 2 s (accepted, or a 503 envelope), and every accepted send reaches Meta exactly once', async () => {
      const channel = await createCloudChannel(fx.t, fx.a.workspaceId, fx.fake, {
        phoneNumberId: '106540352242977',
        accessToken: TOKEN,
        templates: [ORDER],
      });
      const load = new SendLoad(fx.a.api, channel.id, ORDER, '1415557');
      load.start(LOAD_CLIENTS);

      await waitFor(async () => load.accepted().length >= 20, 20_000, 'sends accepted before the restart');
      await fx.redis.stop();
      const stoppedAt = Date.now();
      const ready = await readinessBecomes(fx.t, 503, 5_000, '/health/ready to report Redis down');
      assert.equal(ready.body.details.redis.status, 'down', ready.text);
      // A request that needs no Redis answer goes on (the rate limits let requests through while Redis is away).
      const started = Date.now();
      const contact = await fx.a.api.post('/v1/contacts', { name: 'During the outage', phoneNumber: '+14155579999' });
      assert.equal(contact.status, 200, contact.text);
      assert.ok(Date.now() - started < 2_000, `Create Contact while Redis is down took ${Date.now() - started} ms`);
      await sleep(3_000); // load keeps arriving while the server is down

      await fx.redis.start();
      const startedAt = Date.now();
      await readinessBecomes(fx.t, 200, 30_000, '/health/ready after the restart');
      await waitFor(async () => load.acceptedSince(startedAt) >= 20, 30_000, 'sends accepted again after the restart');
      await load.stop();

      const { outcomes } = load;
      const during = outcomes.filter((o) => o.at >= stoppedAt && o.at < startedAt);
      const codes = [...new Set(outcomes.filter((o) => o.status !== 200).map((o) => `${o.status} ${o.code}`))];
      console.log(
        `redis restart: ${outcomes.length} requests, ${load.accepted().length} accepted, ${during.length} made while down (${during.filter((o) => o.status === 200).length} accepted), refusals ${JSON.stringify(codes)}, slowest ${Math.max(...outcomes.map((o) => o.ms))} ms`,
      );
      const unexpected = outcomes.filter((o) => o.status !== 200 && !(o.status === 503 && o.code && o.retryAfter));
      assert.deepEqual(unexpected, [], 'every request was accepted or answered 503 with a code and Retry-After');
      const slow = outcomes.filter((o) => o.ms >= 2_000);
      assert.deepEqual(slow, [], 'no request waited on Redis for 2 s or more');
      assert.ok(during.length >= 10, `the load went on while Redis was down (${during.length} requests)`);
      await assertAcceptedSentOnce(load, fx.fake);
    });
  },
);
