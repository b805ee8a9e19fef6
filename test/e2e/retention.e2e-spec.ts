import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { it } from 'node:test';
import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { DataSource } from 'typeorm';
import { JobName, QueueName } from '../../src/queue/queue-names.js';
import { Retention } from '../../src/queue/retention.service.js';
import { describeWithApp, type AppFixture } from '../support/describe-with-app.js';
import { waitFor } from '../support/fixtures.js';

const DAY_MS = 86_400_000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY_MS);

/** Rows written straight into the tables, dated in the past (nothing else writes these ages). */
class Rows {
  constructor(
    private readonly fx: AppFixture,
    private readonly workspaceId = randomUUID(),
  ) {}

  private get db(): DataSource {
    return this.fx.t.app.get(DataSource);
  }

  /** Outbox rows on a queue this version never dispatches, so the relay leaves them alone. */
  async outbox(count: number, createdAt: Date, completedAt: Date | null): Promise<string[]> {
    const ids = Array.from({ length: count }, () => randomUUID());
    await this.db.query(
      `INSERT INTO outbox_messages (id, workspace_id, queue, job_name, payload, created_at, dispatched_at, completed_at)
       SELECT unnest($1::uuid[]), $2, 'retention-test', 'retention.test', '{}', $3, $3, $4`,
      [ids, this.workspaceId, createdAt, completedAt],
    );
    return ids;
  }

  async deliveries(count: number, createdAt: Date, status: 'Pending' | 'Succeeded' | 'Failed'): Promise<string[]> {
    const ids = Array.from({ length: count }, () => randomUUID());
    await this.db.query(
      `INSERT INTO webhook_deliveries (id, workspace_id, kind, target_url, payload, status, creation_time)
       SELECT unnest($1::uuid[]), $2, 'call', 'https://hooks.example.com/x', '{}', $3, $4`,
      [ids, this.workspaceId, status, createdAt],
    );
    return ids;
  }

  async sandboxMessages(count: number, createdAt: Date): Promise<string[]> {
    const ids = Array.from({ length: count }, () => randomUUID());
    await this.db.query(
      `INSERT INTO whatsapp_sandbox_messages (id, workspace_id, channel_id, provider_message_id, request, creation_time)
       SELECT unnest($1::uuid[]), $2, $2, 'wamid.test', '{}', $3`,
      [ids, this.workspaceId, createdAt],
    );
    return ids;
  }

  /** How many of `ids` are still in `table`. */
  async remaining(table: string, ids: string[]): Promise<number> {
    const [{ n }] = await this.db.query<[{ n: number }]>(`SELECT count(*)::int AS n FROM "${table}" WHERE id = ANY($1::uuid[])`, [ids]);
    return n;
  }
}

describeWithApp(
  'Retention: finished rows older than their age are deleted in bounded batches',
  // A long interval: the scheduled run stays out of the way of the runs this suite makes itself.
  { env: { RETENTION_BATCH_SIZE: '10', RETENTION_INTERVAL: '1h' } },
  (fx) => {
    it('deletes finished outbox rows older than 7 days, at most one batch per statement; newer and unfinished rows stay', async () => {
      const rows = new Rows(fx);
      const old = await rows.outbox(25, daysAgo(9), daysAgo(8));
      const recent = await rows.outbox(3, daysAgo(9), daysAgo(6));
      const unfinished = await rows.outbox(2, daysAgo(30), null);
      const retention = fx.t.app.get(Retention);

      assert.deepEqual(await retention.prune('outbox_messages', 1), { deleted: 10, batches: 1 });
      assert.equal(await rows.remaining('outbox_messages', old), 15);
      assert.deepEqual(await retention.prune('outbox_messages'), { deleted: 15, batches: 2 });
      assert.equal(await rows.remaining('outbox_messages', old), 0);
      assert.equal(await rows.remaining('outbox_messages', recent), 3);
      assert.equal(await rows.remaining('outbox_messages', unfinished), 2);
    });

    it('keeps webhook deliveries 30 days, and never deletes one with an attempt pending', async () => {
      const rows = new Rows(fx);
      const oldFinished = [...(await rows.deliveries(4, daysAgo(31), 'Succeeded')), ...(await rows.deliveries(3, daysAgo(40), 'Failed'))];
      const oldPending = await rows.deliveries(2, daysAgo(31), 'Pending');
      const recent = await rows.deliveries(5, daysAgo(29), 'Succeeded');

      assert.deepEqual(await fx.t.app.get(Retention).prune('webhook_deliveries'), { deleted: 7, batches: 1 });
      assert.equal(await rows.remaining('webhook_deliveries', oldFinished), 0);
      assert.equal(await rows.remaining('webhook_deliveries', oldPending), 2);
      assert.equal(await rows.remaining('webhook_deliveries', recent), 5);
    });

    it('keeps sandbox messages 7 days', async () => {
      const rows = new Rows(fx);
      const old = await rows.sandboxMessages(12, daysAgo(8));
      const recent = await rows.sandboxMessages(4, daysAgo(6));

      assert.deepEqual(await fx.t.app.get(Retention).prune('whatsapp_sandbox_messages'), { deleted: 12, batches: 2 });
      assert.equal(await rows.remaining('whatsapp_sandbox_messages', old), 0);
      assert.equal(await rows.remaining('whatsapp_sandbox_messages', recent), 4);
    });

    it('skips a row another transaction holds instead of waiting for it, and takes it on a later run', async () => {
      const rows = new Rows(fx);
      const [held, ...free] = await rows.outbox(5, daysAgo(9), daysAgo(8));
      const runner = fx.t.app.get(DataSource).createQueryRunner();
      await runner.connect();
      await runner.startTransaction();
      try {
        // The relay stamping this row would hold it like this.
        await runner.query(`SELECT id FROM outbox_messages WHERE id = $1 FOR UPDATE`, [held]);
        const started = Date.now();
        const result = await fx.t.app.get(Retention).prune('outbox_messages');
        assert.ok(Date.now() - started < 5000, `the prune waited ${Date.now() - started} ms`);
        assert.equal(result.deleted, 4);
        assert.equal(await rows.remaining('outbox_messages', free), 0);
        assert.equal(await rows.remaining('outbox_messages', [held]), 1);
      } finally {
        await runner.rollbackTransaction();
        await runner.release();
      }
      assert.equal((await fx.t.app.get(Retention).prune('outbox_messages')).deleted, 1);
      assert.equal(await rows.remaining('outbox_messages', [held]), 0);
    });

    it('runs as one repeatable maintenance job on RETENTION_INTERVAL', async () => {
      const queue = fx.t.app.get<Queue>(getQueueToken(QueueName.Maintenance));
      const repeatable = (await queue.getRepeatableJobs()).filter((job) => job.name === JobName.PruneOldRows);
      assert.equal(repeatable.length, 1);
      assert.equal(Number(repeatable[0].every), 3_600_000);
    });
  },
);

describeWithApp(
  'Retention: the scheduled job prunes every registered table',
  { env: { RETENTION_INTERVAL: '1s', OUTBOX_RETENTION: '1m', WEBHOOK_DELIVERY_RETENTION: '2m', SANDBOX_MESSAGE_RETENTION: '1m' } },
  (fx) => {
    it('deletes what is older than each configured age, on its own', async () => {
      const rows = new Rows(fx);
      const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);
      const oldOutbox = await rows.outbox(3, minutesAgo(5), minutesAgo(2));
      const newOutbox = await rows.outbox(2, minutesAgo(5), new Date());
      const oldDeliveries = await rows.deliveries(3, minutesAgo(3), 'Succeeded');
      const newDeliveries = await rows.deliveries(2, minutesAgo(1), 'Failed');
      const oldSandbox = await rows.sandboxMessages(3, minutesAgo(2));
      const newSandbox = await rows.sandboxMessages(2, new Date());

      await waitFor(
        async () =>
          (await rows.remaining('outbox_messages', oldOutbox)) === 0 &&
          (await rows.remaining('webhook_deliveries', oldDeliveries)) === 0 &&
          (await rows.remaining('whatsapp_sandbox_messages', oldSandbox)) === 0,
        30_000,
        'the scheduled prune',
      );
      assert.equal(await rows.remaining('outbox_messages', newOutbox), 2);
      assert.equal(await rows.remaining('webhook_deliveries', newDeliveries), 2);
      assert.equal(await rows.remaining('whatsapp_sandbox_messages', newSandbox), 2);
    });
  },
);
