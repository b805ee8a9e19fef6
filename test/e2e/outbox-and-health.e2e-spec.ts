import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { DataSource, In, IsNull } from 'typeorm';
import { inTransaction } from '../../src/database/transactions.js';
import { Outbox } from '../../src/queue/outbox.service.js';
import { OutboxMessage } from '../../src/queue/outbox-message.entity.js';
import { OutboxRelay } from '../../src/queue/outbox.relay.js';
import { JobName, QueueName } from '../../src/queue/queue-names.js';
import { describeWithApp } from '../support/describe-with-app.js';
import { waitFor } from '../support/fixtures.js';
import { ScratchRedis } from '../support/redis-server.js';

describeWithApp(
  'Transactional outbox and readiness through a Redis outage',
  {
    peers: { redis: () => ScratchRedis.start() },
    // API role: the relay pushes to Bull, no worker consumes, so the jobs stay visible in the queue.
    // A short job lock: after Redis comes back, rows older than it are looked up (see the restart test).
    env: ({ redis }) => ({ REDIS_URL: redis.url, APP_ROLE: 'api', QUEUE_LOCK_DURATION_MS: '2000' }),
    workspaces: 0,
    // A test that stops Redis may fail before it starts it again; the app closes against a running one.
    beforeClose: ({ redis }) => redis.start(),
  },
  (fx) => {
    let outbox: Outbox;
    let dataSource: DataSource;
    let queue: Queue;

    before(() => {
      outbox = fx.t.app.get(Outbox);
      dataSource = fx.t.app.get(DataSource);
      queue = fx.t.app.get<Queue>(getQueueToken(QueueName.Maintenance), { strict: false });
    });

    async function enqueueInTransaction(marker: string): Promise<string> {
      const [row] = await inTransaction(() =>
        outbox.enqueue([{ jobName: JobName.PurgeExpiredIdempotencyKeys, payload: { reason: marker } }]),
      );
      outbox.afterCommit();
      return row.id;
    }

    it('moves a committed row to Bull with the row id as the job id', async () => {
      const id = await enqueueInTransaction('first');
      const job = await waitFor(() => queue.getJob(id), 5000, 'job in Bull');
      assert.equal(job.name, JobName.PurgeExpiredIdempotencyKeys);
      assert.equal(job.data.reason, 'first');
      const row = await dataSource.getRepository(OutboxMessage).findOneByOrFail({ id });
      assert.ok(row.dispatchedAt, 'row stamped as dispatched');
    });

    it('picks up rows left behind without a kick (as after a crash between commit and push)', async () => {
      // Written with the plain data source, not through the ambient transaction: no push after commit.
      const [{ id }] = await dataSource.query<Array<{ id: string }>>(
        `INSERT INTO outbox_messages (id, queue, job_name, payload) VALUES (gen_random_uuid(), $1, $2, $3) RETURNING id`,
        [QueueName.Maintenance, JobName.PurgeExpiredIdempotencyKeys, { reason: 'left-behind' }],
      );
      const job = await waitFor(() => queue.getJob(id), 5000, 'the poll to dispatch the row');
      assert.equal(job.data.reason, 'left-behind');
    });

    it('writes nothing when the transaction rolls back', async () => {
      const before = await dataSource.getRepository(OutboxMessage).count();
      await assert.rejects(
        inTransaction(async () => {
          await outbox.enqueue([{ jobName: JobName.PurgeExpiredIdempotencyKeys, payload: { reason: 'rolled-back' } }]);
          throw new Error('business rule failed');
        }),
      );
      assert.equal(await dataSource.getRepository(OutboxMessage).count(), before);
    });

    it('pushes again a job whose hash Redis rebuilt without its name and data (a command replayed after a restart)', async () => {
      const id = await enqueueInTransaction('remnant');
      const job = await waitFor(() => queue.getJob(id), 5000, 'job in Bull');
      // What a replayed move-to-active leaves on an empty Redis: the job's key with one field.
      await job.remove();
      await queue.client.hset(queue.toKey(id), 'processedOn', String(Date.now()));
      const remnant = await queue.getJob(id);
      assert.equal(remnant?.name, '__default__', 'Bull reads the remnant as a job without a name');
      await dataSource.getRepository(OutboxMessage).update({ id }, { dispatchedAt: new Date(Date.now() - 3_600_000) });

      const relay = fx.t.app.get(OutboxRelay);
      const pushedAgain = await waitFor(
        async () => {
          await relay.recoverLostJobs();
          const found = await queue.getJob(id);
          return found?.name === JobName.PurgeExpiredIdempotencyKeys ? found : undefined;
        },
        10_000,
        'the job pushed again whole',
      );
      assert.equal(pushedAgain.data.reason, 'remnant');
      assert.equal(pushedAgain.data.outboxId, id);
    });

    it('runs again a job Bull failed because its workers died under it too often (its handler never ended)', async () => {
      const id = await enqueueInTransaction('stalled-out');
      const job = await waitFor(() => queue.getJob(id), 5000, 'job in Bull');
      // What Bull's stalled-job check (moveStalledJobsToWait) does to a job whose worker died more than maxStalledCount times.
      await queue.client
        .multi()
        .zrem(queue.toKey('delayed'), id)
        .lrem(queue.toKey('wait'), 0, id)
        .zadd(queue.toKey('failed'), Date.now(), id)
        .hset(queue.toKey(id), 'failedReason', 'job stalled more than allowable limit', 'finishedOn', String(Date.now()))
        .exec();
      assert.equal(await job.getState(), 'failed');
      await dataSource.getRepository(OutboxMessage).update({ id }, { dispatchedAt: new Date(Date.now() - 3_600_000) });

      // A recovery round of the relay's own may hold the row (SKIP LOCKED), hence the loop.
      const relay = fx.t.app.get(OutboxRelay);
      const again = await waitFor(
        async () => {
          await relay.recoverLostJobs();
          const found = await queue.getJob(id);
          return (await found?.getState()) === 'waiting' ? found : undefined;
        },
        10_000,
        'the stalled-out job waiting to run again',
      );
      assert.equal(again.data.reason, 'stalled-out');
    });

    it('pushes again, a job lock after Redis is back, a job dispatched before Redis restarted empty (not after OUTBOX_RECOVER_AFTER_MS)', async () => {
      const id = await enqueueInTransaction('before-restart');
      await waitFor(() => queue.getJob(id), 5000, 'job in Bull');
      await fx.redis.stop(); // no persistence: the restarted server has no job
      await fx.redis.start();
      assert.equal(await dataSource.getRepository(OutboxMessage).countBy({ id, completedAt: IsNull() }), 1);
      // The default recovery age is 5 minutes: only the checks made after reconnecting (rows older than the 2 s lock) find it this soon.
      const job = await waitFor(() => queue.getJob(id), 20_000, 'the lost job pushed again after the reconnect');
      assert.equal(job.data.reason, 'before-restart');
      await waitFor(async () => (await fx.t.http.get('/health/ready')).status === 200, 10_000, 'readiness after the restart');
    });

    it('reports Redis down on /health/ready (503) and keeps rows enqueued during the outage until Redis is back', async () => {
      await fx.redis.stop();
      const ready = await waitFor(
        async () => {
          const res = await fx.t.http.get('/health/ready');
          return res.status === 503 ? res : undefined;
        },
        10_000,
        'readiness to fail',
      );
      assert.equal(ready.body.details.redis.status, 'down');
      assert.equal(ready.body.details.database.status, 'up');
      assert.equal((await fx.t.http.get('/health/live')).status, 200);

      const ids = [];
      for (let i = 0; i < 5; i++) ids.push(await enqueueInTransaction(`during-outage-${i}`));
      await new Promise((resolve) => setTimeout(resolve, 700));
      const pending = await dataSource.getRepository(OutboxMessage).countBy({ id: In(ids), dispatchedAt: IsNull() });
      assert.equal(pending, 5, 'rows stay pending while Redis is down');

      await fx.redis.start();
      for (const id of ids) {
        const job = await waitFor(() => queue.getJob(id), 20_000, `job ${id} after Redis came back`);
        assert.match(String(job.data.reason), /^during-outage-/);
      }
      await waitFor(async () => (await fx.t.http.get('/health/ready')).status === 200, 10_000, 'readiness to recover');
    });
  },
);
