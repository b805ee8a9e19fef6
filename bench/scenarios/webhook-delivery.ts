import { createServer } from 'node:http';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { resetConfig } from '../../src/config/load-config.js';
import { createApp } from '../../src/create-app.js';
import { inTransaction } from '../../src/database/transactions.js';
import { Outbox } from '../../src/queue/outbox.service.js';
import { WebhookKind } from '../../src/webhooks/webhook-kind.js';
import { WebhookPublisher } from '../../src/webhooks/webhook-publisher.js';
import { spawnWorker, type BenchContext } from '../context.js';
import { freePort } from '../harness.js';
import type { Scenario, ScenarioResult } from './index.js';

const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 20_000);
const PUBLISH_PER_SECOND = 1_250;
const BATCH = 25;
const WARM_UP_EVENTS = 2_500;

/**
 * 20,000 events published in-process by an API-role app (as domain code does: a transaction, then
 * a kick) at 1,250 events/s, after 2 s of the same load to warm up, delivered by one worker
 * process to a receiver in this process.
 * Measures deliveries/s, the p95 from commit to first attempt, and the worker's peak RSS.
 */
export const webhookDelivery: Scenario = {
  name: 'webhooks: 20k events, one worker',
  async run(ctx: BenchContext): Promise<ScenarioResult> {
    const receivedAt = new Map<string, number>();
    const receiver = createServer((req, res) => {
      receivedAt.set(String(req.headers['webhook-id']), performance.timeOrigin + performance.now());
      req.resume();
      req.on('end', () => res.end('ok'));
    });
    receiver.keepAliveTimeout = 60_000;
    const receiverPort = await freePort();
    await new Promise<void>((resolve) => receiver.listen(receiverPort, '127.0.0.1', resolve));

    const worker = spawnWorker(ctx);
    const publisherApp = await startPublisher(ctx);
    try {
      const publisher = publisherApp.get(WebhookPublisher);
      const outbox = publisherApp.get(Outbox);
      await waitUntil(() => /Worker started/.test(worker.log), 30_000, 'the worker');

      const targetUrl = `http://127.0.0.1:${receiverPort}/hook`;
      /** Publishes `count` events at the paced rate; returns each event's commit time. */
      const publishPaced = async (count: number) => {
        const committedAt = new Map<string, number>();
        const started = Date.now();
        for (let published = 0; published < count; published += BATCH) {
          const due = started + (published / PUBLISH_PER_SECOND) * 1000;
          if (due > Date.now()) await sleep(due - Date.now());
          const events = Array.from({ length: BATCH }, (_, i) => ({
            workspaceId: ctx.workspaceId,
            kind: WebhookKind.Call,
            targetUrl,
            payload: { n: published + i, callId: `bench-${published + i}` },
          }));
          const jobs = await inTransaction(() => publisher.publish(events));
          const now = performance.timeOrigin + performance.now();
          for (const job of jobs) committedAt.set(String(job.payload.deliveryId), now);
          outbox.afterCommit();
        }
        return committedAt;
      };
      // Warm-up (2 s of load, not measured): JIT, connection pools and keep-alive sockets.
      const warmUp = await publishPaced(WARM_UP_EVENTS);
      await waitUntil(() => [...warmUp.keys()].every((id) => receivedAt.has(id)), 60_000, 'the warm-up deliveries');
      receivedAt.clear();

      const committedAt = await publishPaced(EVENTS);
      await waitUntil(() => receivedAt.size >= EVENTS, 180_000, `${EVENTS} deliveries`);
      const firstCommit = Math.min(...committedAt.values());
      const lastDelivery = Math.max(...receivedAt.values());
      const deliveriesPerSecond = EVENTS / ((lastDelivery - firstCommit) / 1000);
      const latencies = [...committedAt].map(([id, at]) => (receivedAt.get(id) ?? Infinity) - at).sort((a, b) => a - b);
      const p95 = latencies[Math.floor(latencies.length * 0.95)];
      const p50 = latencies[Math.floor(latencies.length * 0.5)];
      const workerRss = worker.peakRssMb();
      if (process.env.BENCH_VERBOSE) {
        // Latency by second of publishing: shows whether slow deliveries cluster.
        const bySecond = new Map<number, number[]>();
        for (const [id, at] of committedAt) {
          const second = Math.floor((at - firstCommit) / 1000);
          bySecond.set(second, [...(bySecond.get(second) ?? []), (receivedAt.get(id) ?? Infinity) - at]);
        }
        for (const [second, values] of [...bySecond].sort((a, b) => a[0] - b[0])) {
          values.sort((a, b) => a - b);
          console.log(
            `  second ${second}: p50 ${Math.round(values[Math.floor(values.length / 2)])} ms, max ${Math.round(values[values.length - 1])} ms`,
          );
        }
      }
      return {
        name: this.name,
        checks: [
          { what: `${Math.round(deliveriesPerSecond)} deliveries/s ≥ 1000`, ok: deliveriesPerSecond >= 1000 },
          { what: `commit→first attempt p50 ${Math.round(p50)} ms, p95 ${Math.round(p95)} ms ≤ 1000 ms`, ok: p95 <= 1000 },
          { what: `worker peak RSS ${workerRss} MB ≤ 250 MB`, ok: workerRss <= 250 },
          { what: `all ${EVENTS} delivered`, ok: [...committedAt.keys()].every((id) => receivedAt.has(id)) },
        ],
      };
    } finally {
      await publisherApp.close();
      await worker.stop();
      receiver.closeAllConnections();
      receiver.close();
    }
  },
};

/** An in-process app in the API role (no HTTP listener) to publish events as domain code does. */
export async function startPublisher(ctx: BenchContext): Promise<NestFastifyApplication> {
  Object.assign(process.env, { ...ctx.env, APP_ROLE: 'api', MIGRATIONS_RUN: 'false', LOG_LEVEL: 'warn', OUTBOX_POLL_INTERVAL_MS: '200' });
  resetConfig();
  const app = await createApp();
  await app.init();
  return app;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export async function waitUntil(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}
