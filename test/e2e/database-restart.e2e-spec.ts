import assert from 'node:assert/strict';
import { it } from 'node:test';
import { approvedTemplate, createCloudChannel } from '../support/cloud-channel.js';
import { describeWithApp } from '../support/describe-with-app.js';
import { FakeCloudApi, type CloudRequest } from '../support/fake-cloud-api.js';
import { waitFor } from '../support/fixtures.js';
import { ScratchPostgres } from '../support/postgres-cluster.js';

const TOKEN = 'EAAG-restart-token';
const ORDER = approvedTemplate('order_ready', 'UTILITY', 'Your order is ready.');
const LOAD_CLIENTS = 4;

interface Outcome {
  to: string;
  status: number;
  code?: string;
  retryAfter?: string;
  ms: number;
  at: number;
}

/** The number a Cloud API send went to, in this test's spelling (digits only). */
const recipientOf = (request: CloudRequest) => String(request.body?.to).replace(/^\+/, '');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * PostgreSQL restarted while Send Template requests keep coming (API.md §13 sends through the outbox):
 * a private cluster on another port, stopped as an operator's restart does and started again.
 */
describeWithApp(
  'PostgreSQL restarted under load: clear 503s while it is down, nothing accepted is lost, recovery without a restart',
  {
    peers: { pg: () => ScratchPostgres.start(), fake: () => FakeCloudApi.start({ acceptedTokens: [TOKEN] }) },
    env: ({ pg, fake }) => ({
      DATABASE_SERVER_URL: pg.url('').replace(/\/$/, ''),
      WHATSAPP_GRAPH_URL: fake.url,
      RATE_LIMIT_REQUESTS_PER_MINUTE: '1000000',
      RATE_LIMIT_WHATSAPP_SENDS_PER_SECOND: '100000',
    }),
    workspaces: 1,
    // A test that failed while the server was down still lets the app close against a running one.
    beforeClose: ({ pg }) => pg.start().catch(() => undefined),
  },
  (fx) => {
    it('answers 503 Database:Unavailable fast while the database is down, then serves again, and every accepted send reaches Meta exactly once', async () => {
      const channel = await createCloudChannel(fx.t, fx.a.workspaceId, fx.fake, {
        phoneNumberId: '106540352242931',
        accessToken: TOKEN,
        templates: [ORDER],
      });
      let seq = 0;
      const outcomes: Outcome[] = [];
      const send = async (): Promise<Outcome> => {
        const to = `1415556${String(++seq).padStart(4, '0')}`;
        const started = Date.now();
        const res = await fx.a.api.post('/v1/whatsapp/service-account/sendTemplate', {
          ChannelId: channel.id,
          TemplateName: ORDER.name,
          Language: 'en_US',
          ToNumber: to,
        });
        return {
          to,
          status: res.status,
          code: res.body?.error?.code,
          retryAfter: res.headers.get('retry-after') ?? undefined,
          ms: Date.now() - started,
          at: started,
        };
      };
      let loading = true;
      const clients = Array.from({ length: LOAD_CLIENTS }, async () => {
        while (loading) {
          outcomes.push(await send());
          await sleep(20);
        }
      });

      await waitFor(async () => outcomes.filter((o) => o.status === 200).length >= 20, 20_000, 'sends accepted before the restart');
      await fx.pg.stop();
      const stoppedAt = Date.now();

      const ready = await waitFor(
        async () => {
          const res = await fx.t.http.get('/health/ready');
          return res.status === 503 ? res : undefined;
        },
        5_000,
        '/health/ready to report the database down',
      );
      assert.equal(ready.body.details.database.status, 'down', ready.text);
      const refused = await send();
      assert.equal(refused.status, 503, JSON.stringify(refused));
      assert.equal(refused.code, 'Database:Unavailable');
      assert.equal(refused.retryAfter, '5');
      assert.ok(refused.ms < 2_000, `a request while the database is down fails fast: ${refused.ms} ms`);
      await sleep(2_000); // load keeps arriving while the server is down

      await fx.pg.start();
      const startedAt = Date.now();
      await waitFor(async () => (await fx.t.http.get('/health/ready')).status === 200, 30_000, '/health/ready after the restart');
      await waitFor(
        async () => outcomes.filter((o) => o.at > startedAt && o.status === 200).length >= 20,
        30_000,
        'sends accepted again after the restart',
      );
      loading = false;
      await Promise.all(clients);

      const byStatus = (predicate: (o: Outcome) => boolean) => outcomes.filter(predicate).length;
      const accepted = outcomes.filter((o) => o.status === 200);
      console.log(
        `database restart: ${outcomes.length} requests, ${accepted.length} accepted, ${byStatus((o) => o.status === 503)} answered 503 while down (${((startedAt - stoppedAt) / 1000).toFixed(1)} s)`,
      );
      const unexpected = outcomes.filter((o) => o.status !== 200 && !(o.status === 503 && o.code === 'Database:Unavailable'));
      assert.deepEqual(unexpected, [], 'every request was accepted or answered 503 Database:Unavailable');
      assert.ok(byStatus((o) => o.status === 503 && o.at >= stoppedAt && o.at < startedAt) >= 1, 'requests during the outage were refused');

      // Nothing accepted is lost, nothing is sent twice, and what was refused never left.
      await waitFor(
        async () => {
          const sentTo = new Set(fx.fake.sends.map(recipientOf));
          return accepted.every((o) => sentTo.has(o.to));
        },
        90_000,
        'every accepted send at the fake Cloud API',
      ).catch((err: Error) => {
        const sentTo = new Set(fx.fake.sends.map(recipientOf));
        throw new Error(`${err.message}: missing ${JSON.stringify(accepted.filter((o) => !sentTo.has(o.to)).map((o) => o.to))}`);
      });
      const sendsTo = new Map<string, number>();
      for (const to of fx.fake.sends.map(recipientOf)) sendsTo.set(to, (sendsTo.get(to) ?? 0) + 1);
      assert.deepEqual(
        [...sendsTo].filter(([, count]) => count > 1),
        [],
        'no recipient received the message twice',
      );
      const refusedTo = new Set(outcomes.filter((o) => o.status === 503).map((o) => o.to));
      assert.deepEqual(
        [...sendsTo.keys()].filter((to) => refusedTo.has(to)),
        [],
        'a refused request sent nothing',
      );
    });
  },
);
