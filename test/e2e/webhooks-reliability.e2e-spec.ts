import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { it } from 'node:test';
import { describeWithApp } from '../support/describe-with-app.js';
import { waitFor, type WorkspaceFixture } from '../support/fixtures.js';
import { ScratchRedis } from '../support/redis-server.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { publishEvent } from '../support/webhooks.js';

async function allSettled(ws: WorkspaceFixture, ids: string[], timeoutMs: number) {
  // What was last seen goes into the failure, so a stall says where the deliveries stood.
  let lastSeen = 'no page read yet';
  try {
    return await waitFor(
      async () => {
        const page = await ws.api.get(`/v1/webhook-deliveries?MaxResultCount=1000`);
        const mine = page.body.items.filter((d: { id: string }) => ids.includes(d.id));
        lastSeen = describeDeliveries(mine, ids.length);
        return mine.length === ids.length && mine.every((d: { status: string }) => d.status === 'Succeeded') ? mine : undefined;
      },
      timeoutMs,
      `${ids.length} deliveries to succeed`,
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}; last seen: ${lastSeen}`, { cause: err });
  }
}

/** "298 of 300 listed: Succeeded×296, Pending(attempts 1, next 20:41:02.123Z)×2": the shape of a stall. */
function describeDeliveries(deliveries: { status: string; attempts: number; nextAttemptAt: string | null }[], expected: number): string {
  const counts = new Map<string, number>();
  for (const d of deliveries) {
    const key = d.status === 'Succeeded' ? d.status : `${d.status}(attempts ${d.attempts}, next ${d.nextAttemptAt ?? 'none'})`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const parts = [...counts].sort((x, y) => y[1] - x[1]).slice(0, 8);
  return `${deliveries.length} of ${expected} listed: ${parts.map(([key, n]) => `${key}×${n}`).join(', ')}`;
}

let worker: ChildProcess | undefined;

describeWithApp(
  'Webhook delivery survives a worker killed mid-delivery',
  {
    peers: { receiver: () => WebhookReceiver.start() },
    // This process only publishes and reads the log; the deliveries happen in a worker process.
    env: {
      APP_ROLE: 'api',
      RATE_LIMIT_REQUESTS_PER_MINUTE: '1000000',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '1s',
      QUEUE_LOCK_DURATION_MS: '2000',
    },
    workspaces: 1,
    beforeClose: () => worker?.kill('SIGKILL'),
  },
  (fx) => {
    const startWorker = () => {
      const child = spawn(process.execPath, ['dist/src/main.js'], {
        env: { ...process.env, APP_ROLE: 'worker', MIGRATIONS_RUN: 'false', LOG_LEVEL: 'warn' },
        stdio: 'ignore',
      });
      return child;
    };

    it('delivers the event again, same webhook-id, after SIGKILL and a restart', async () => {
      fx.receiver.script('/kill', { delayMs: 5000 });
      worker = startWorker();
      const id = await publishEvent(fx.t, fx.a.workspaceId, fx.receiver.url('/kill'));
      await waitFor(async () => fx.receiver.at('/kill').length === 1, 20_000, 'the worker to start the attempt');
      worker.kill('SIGKILL');
      await new Promise((resolve) => worker!.once('exit', resolve));
      worker = startWorker();
      const [d] = await allSettled(fx.a, [id], 60_000);
      assert.equal(d.status, 'Succeeded');
      const got = fx.receiver.at('/kill');
      assert.ok(got.length >= 2, `received ${got.length} times`);
      assert.ok(got.every((r) => r.headers['webhook-id'] === id));
    });

    it("delivers a throttled endpoint's backlog after the worker holding it in memory was killed", async () => {
      // Only the worker started here runs: nobody else takes over its jobs.
      if (worker && worker.exitCode === null && worker.signalCode === null) {
        const exited = new Promise((resolve) => worker!.once('exit', resolve));
        worker.kill('SIGKILL');
        await exited;
      }
      const created = await fx.a.api.post('/v1/webhook-endpoints', {
        url: fx.receiver.url('/lane'),
        rateLimitPerSecond: 2,
        eventTypes: ['conversation.tags_changed'],
      });
      assert.equal(created.status, 200, created.text);
      const ids: string[] = [];
      for (let i = 0; i < 12; i++) {
        const sent = await fx.a.api.post(`/v1/webhook-endpoints/${created.body.id}/test`, { eventType: 'contact.created' });
        assert.equal(sent.status, 200, sent.text);
        ids.push(sent.body.id as string);
      }
      worker = startWorker();
      // Two a second: most of the twelve wait in the worker's lane for their turn when it dies.
      await waitFor(async () => fx.receiver.at('/lane').length >= 2, 20_000, 'the first attempts');
      worker.kill('SIGKILL');
      await new Promise((resolve) => worker!.once('exit', resolve));
      assert.ok(fx.receiver.at('/lane').length < ids.length, 'some were still waiting');
      worker = startWorker();
      await allSettled(fx.a, ids, 90_000);
      const received = new Set(fx.receiver.at('/lane').map((r) => String(r.headers['webhook-id'])));
      assert.deepEqual(
        ids.filter((id) => !received.has(id)),
        [],
        'every event reached the receiver',
      );
    });
  },
);

describeWithApp(
  'Webhook publishing through a Redis outage loses nothing',
  {
    peers: { redis: () => ScratchRedis.start(), receiver: () => WebhookReceiver.start() },
    env: ({ redis }) => ({
      REDIS_URL: redis.url,
      RATE_LIMIT_REQUESTS_PER_MINUTE: '1000000',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '500ms',
      OUTBOX_RECOVER_AFTER_MS: '1500',
    }),
    workspaces: 1,
    beforeClose: ({ redis }) => redis.start(),
  },
  (fx) => {
    it('delivers every event published before, during and after the outage', async () => {
      const ids: string[] = [];
      const publish = async (count: number) => {
        for (let i = 0; i < count; i++) ids.push(await publishEvent(fx.t, fx.a.workspaceId, fx.receiver.url('/count'), { n: ids.length }));
      };
      // A slow receiver keeps the first events queued in Redis when it goes down.
      fx.receiver.script('/count', ...Array.from({ length: 100 }, () => ({ delayMs: 300 })));
      await publish(100);
      await fx.redis.stop(); // jobs pushed but not yet run are gone with it: it keeps nothing on disk
      await publish(100);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await fx.redis.start();
      await publish(100);
      await allSettled(fx.a, ids, 90_000);
      const receivedIds = new Set(fx.receiver.at('/count').map((r) => String(r.headers['webhook-id'])));
      const missing = ids.filter((id) => !receivedIds.has(id));
      assert.deepEqual(missing, [], `${missing.length} of ${ids.length} events never arrived`);
      assert.equal(receivedIds.size, 300);
    });
  },
);
