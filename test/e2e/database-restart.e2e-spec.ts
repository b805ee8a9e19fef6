import assert from 'node:assert/strict';
import { it } from 'node:test';
import { approvedTemplate, createCloudChannel } from '../support/cloud-channel.js';
import { describeWithApp } from '../support/describe-with-app.js';
import { FakeCloudApi } from '../support/fake-cloud-api.js';
import { waitFor } from '../support/fixtures.js';
import { readinessBecomes } from '../support/readiness.js';
import { ScratchPostgres } from '../support/postgres-cluster.js';
import { assertAcceptedSentOnce, SendLoad, type SendOutcome } from '../support/send-load.js';

const TOKEN = 'EAAG-restart-token';
const ORDER = approvedTemplate('order_ready', 'UTILITY', 'Your order is ready.');
const LOAD_CLIENTS = 4;
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
      const load = new SendLoad(fx.a.api, channel.id, ORDER, '1415556');
      load.start(LOAD_CLIENTS);

      await waitFor(async () => load.accepted().length >= 20, 20_000, 'sends accepted before the restart');
      await fx.pg.stop();
      const stoppedAt = Date.now();

      const ready = await readinessBecomes(fx.t, 503, 5_000, '/health/ready to report the database down');
      assert.equal(ready.body.details.database.status, 'down', ready.text);
      const refused = await load.send();
      assert.equal(refused.status, 503, JSON.stringify(refused));
      assert.equal(refused.code, 'Database:Unavailable');
      assert.equal(refused.retryAfter, '5');
      assert.ok(refused.ms < 2_000, `a request while the database is down fails fast: ${refused.ms} ms`);
      await sleep(2_000); // load keeps arriving while the server is down

      await fx.pg.start();
      const startedAt = Date.now();
      await readinessBecomes(fx.t, 200, 30_000, '/health/ready after the restart');
      await waitFor(async () => load.acceptedSince(startedAt) >= 20, 30_000, 'sends accepted again after the restart');
      await load.stop();

      const { outcomes } = load;
      const byStatus = (predicate: (o: SendOutcome) => boolean) => outcomes.filter(predicate).length;
      console.log(
        `database restart: ${outcomes.length} requests, ${load.accepted().length} accepted, ${byStatus((o) => o.status === 503)} answered 503 while down (${((startedAt - stoppedAt) / 1000).toFixed(1)} s)`,
      );
      const unexpected = outcomes.filter((o) => o.status !== 200 && !(o.status === 503 && o.code === 'Database:Unavailable'));
      assert.deepEqual(unexpected, [], 'every request was accepted or answered 503 Database:Unavailable');
      assert.ok(byStatus((o) => o.status === 503 && o.at >= stoppedAt && o.at < startedAt) >= 1, 'requests during the outage were refused');
      await assertAcceptedSentOnce(load, fx.fake);
    });
  },
);
