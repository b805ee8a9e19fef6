import { createServer as createTcpServer, type Socket } from 'node:net';
import { createServer } from 'node:http';
import { inTransaction } from '../../src/database/transactions.js';
import { WebhookEventType } from '../../src/webhooks/webhook-kind.js';
import { WebhookPublisher } from '../../src/webhooks/webhook-publisher.js';
import { spawnWorker, type BenchContext } from '../context.js';
import { freePort, NodeProcess } from '../harness.js';
import type { Scenario, ScenarioResult } from './index.js';
import { startPublisher, waitUntil } from './webhook-delivery.js';

const ENDPOINTS = 10;
const EVENTS = Number(process.env.BENCH_FANOUT_EVENTS ?? 2_000);
const BATCH = 50;
/**
 * Events a second while latency is measured (alone, then beside the black hole). By default half
 * the rate the worker reached alone, so that what is measured is the black hole's effect rather
 * than a backlog of a machine already at its limit.
 */
const PACED_EVENTS_PER_SECOND = process.env.BENCH_FANOUT_PACED_RATE ? Number(process.env.BENCH_FANOUT_PACED_RATE) : undefined;
const THROTTLE_PER_SECOND = Number(process.env.BENCH_THROTTLE_RATE ?? 50);
const THROTTLE_SECONDS = Number(process.env.BENCH_THROTTLE_SECONDS ?? 60);

const now = () => performance.timeOrigin + performance.now();

/** A receiver on 127.0.0.1 recording, per path, when each event (by its `data.id`) arrived. */
export async function startEventReceiver() {
  const arrivals = new Map<string, Map<string, number>>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = now();
      const { data } = JSON.parse(Buffer.concat(chunks).toString()) as { data: { id: string } };
      const path = req.url ?? '/';
      const byEvent = arrivals.get(path) ?? new Map<string, number>();
      if (!byEvent.has(data.id)) byEvent.set(data.id, at);
      arrivals.set(path, byEvent);
      res.end('ok');
    });
  });
  server.keepAliveTimeout = 60_000;
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    arrivals,
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** An endpoint that takes connections and never answers: every attempt waits out its deadline. */
async function startBlackHole() {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => sockets.delete(socket));
    socket.resume();
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}/never`,
    close() {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

/**
 * Runs `body` with one worker process and an in-process API-role app that writes domain events as
 * the services do (a transaction, the event fanned out to the endpoints that take it).
 */
async function withWorkerAndPublisher<T>(
  ctx: BenchContext,
  body: (publish: (ids: string[]) => Promise<number>, worker: NodeProcess) => Promise<T>,
): Promise<T> {
  const worker = spawnWorker(ctx);
  const app = await startPublisher(ctx);
  try {
    await waitUntil(() => /Worker started/.test(worker.log), 30_000, 'the worker');
    const publisher = app.get(WebhookPublisher);
    /** Writes one `contact.created` event per id in one transaction; returns the commit time. */
    const publish = async (ids: string[]) => {
      await inTransaction(async () => {
        for (const id of ids) {
          await publisher.emit(ctx.workspaceId, WebhookEventType.ContactCreated, { id } as never, { orderingKey: id });
        }
      });
      return now();
    };
    return await body(publish, worker);
  } finally {
    await app.close();
    await worker.stop();
  }
}

async function createEndpoints(ctx: BenchContext, urls: string[], extra: Record<string, unknown> = {}): Promise<string[]> {
  const ids: string[] = [];
  for (const url of urls) {
    const endpoint = await ctx.call('POST', '/v1/webhook-endpoints', { url, eventTypes: [WebhookEventType.ContactCreated], ...extra });
    if (!endpoint?.id) throw new Error(`could not create the endpoint ${url}: ${JSON.stringify(endpoint)}`);
    ids.push(endpoint.id as string);
  }
  return ids;
}

async function deleteEndpoints(ctx: BenchContext, ids: string[]): Promise<void> {
  for (const id of ids) await ctx.call('DELETE', `/v1/webhook-endpoints/${id}`);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

/**
 * Publishes EVENTS events in transactions of BATCH (of 10 when paced), as fast as they commit or at
 * `perSecond`; returns each event's commit time.
 */
async function publishAll(publish: (ids: string[]) => Promise<number>, prefix: string, perSecond?: number): Promise<Map<string, number>> {
  const committedAt = new Map<string, number>();
  const batch = perSecond ? 10 : BATCH;
  const started = Date.now();
  for (let n = 0; n < EVENTS; n += batch) {
    if (perSecond) {
      const due = started + (n / perSecond) * 1000;
      if (due > Date.now()) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
    }
    const ids = Array.from({ length: Math.min(batch, EVENTS - n) }, (_, i) => `${prefix}-${n + i}`);
    const at = await publish(ids);
    for (const id of ids) committedAt.set(id, at);
  }
  return committedAt;
}

/**
 * Fan-out: 10 endpoints on 127.0.0.1 take `contact.created`; 2,000 events become 20,000 deliveries,
 * delivered by one worker. Run three times: alone as fast as events commit (the rate), then paced
 * alone and paced beside an 11th endpoint that never answers (the live endpoints' commit → first
 * attempt must not suffer from it).
 */
export const webhookFanOutScenario: Scenario = {
  name: 'webhook endpoints: fan-out to 10, and beside a black hole',
  async run(ctx: BenchContext): Promise<ScenarioResult> {
    const receiver = await startEventReceiver();
    const blackHole = await startBlackHole();
    const paths = Array.from({ length: ENDPOINTS }, (_, i) => `/e${i}`);
    const endpointIds = await createEndpoints(
      ctx,
      paths.map((p) => receiver.url(p)),
    );
    const checks: ScenarioResult['checks'] = [];
    try {
      await withWorkerAndPublisher(ctx, async (publish, worker) => {
        // Warm-up: JIT, pools and keep-alive sockets.
        await publishAll(publish, 'warm');
        const counts = () => paths.map((p) => receiver.arrivals.get(p)?.size ?? 0).join(', ');
        await waitUntil(() => paths.every((p) => (receiver.arrivals.get(p)?.size ?? 0) >= EVENTS), 120_000, 'the warm-up deliveries').catch(
          (err: Error) => {
            throw new Error(`${err.message} (received per endpoint: ${counts()})`);
          },
        );
        receiver.arrivals.clear();

        const measure = async (label: string, perSecond?: number) => {
          const committedAt = await publishAll(publish, label, perSecond);
          const delivered = () =>
            paths.reduce(
              (sum, p) => sum + [...(receiver.arrivals.get(p)?.keys() ?? [])].filter((id) => id.startsWith(`${label}-`)).length,
              0,
            );
          await waitUntil(() => delivered() >= EVENTS * ENDPOINTS, 180_000, `${EVENTS * ENDPOINTS} deliveries (${label})`);
          const latencies: number[] = [];
          let last = 0;
          for (const p of paths) {
            for (const [id, at] of receiver.arrivals.get(p) ?? []) {
              if (!id.startsWith(`${label}-`)) continue;
              latencies.push(at - committedAt.get(id)!);
              last = Math.max(last, at);
            }
          }
          latencies.sort((a, b) => a - b);
          const first = Math.min(...committedAt.values());
          return {
            rate: (EVENTS * ENDPOINTS) / ((last - first) / 1000),
            p50: percentile(latencies, 0.5),
            p95: percentile(latencies, 0.95),
          };
        };

        const alone = await measure('alone');
        checks.push({
          what: `fan-out ${EVENTS} events × ${ENDPOINTS} endpoints: ${Math.round(alone.rate)} deliveries/s ≥ 1500 (commit→first attempt p50 ${Math.round(alone.p50)} ms, p95 ${Math.round(alone.p95)} ms)`,
          ok: alone.rate >= 1500,
        });

        const pace = PACED_EVENTS_PER_SECOND ?? Math.max(10, Math.round(alone.rate / ENDPOINTS / 2));
        const paced = await measure('paced', pace);
        const holeId = (await createEndpoints(ctx, [blackHole.url]))[0];
        endpointIds.push(holeId);
        const beside = await measure('beside', pace);
        checks.push({
          what:
            `at ${pace} events/s (${pace * ENDPOINTS} deliveries/s) beside a black-hole endpoint: live endpoints' ` +
            `commit→first attempt p95 ${Math.round(beside.p95)} ms ≤ 1000 ms (p50 ${Math.round(beside.p50)} ms; without it p50 ${Math.round(paced.p50)} ms, p95 ${Math.round(paced.p95)} ms)`,
          ok: beside.p95 <= 1000,
        });
        const rss = worker.peakRssMb();
        checks.push({ what: `worker peak RSS ${rss} MB ≤ 250 MB`, ok: rss <= 250 });
      });
    } finally {
      await deleteEndpoints(ctx, endpointIds);
      receiver.close();
      blackHole.close();
    }
    return { name: this.name, checks };
  },
};

/**
 * Throttle accuracy: an endpoint limited to 50 attempts a second gets 60 s worth of events at once;
 * the receiver's rate over the whole run is within ±5% of the limit, and no second exceeds it.
 */
export const webhookThrottleScenario: Scenario = {
  name: 'webhook endpoints: throttle accuracy',
  async run(ctx: BenchContext): Promise<ScenarioResult> {
    const receiver = await startEventReceiver();
    const total = THROTTLE_PER_SECOND * THROTTLE_SECONDS;
    const endpointIds = await createEndpoints(ctx, [receiver.url('/throttled')], { rateLimitPerSecond: THROTTLE_PER_SECOND });
    try {
      return await withWorkerAndPublisher(ctx, async (publish) => {
        for (let n = 0; n < total; n += BATCH) {
          await publish(Array.from({ length: Math.min(BATCH, total - n) }, (_, i) => `throttled-${n + i}`));
        }
        const arrivals = () => receiver.arrivals.get('/throttled') ?? new Map<string, number>();
        await waitUntil(() => arrivals().size >= total, (THROTTLE_SECONDS + 60) * 1000, `${total} throttled deliveries`).catch(
          (err: Error) => {
            const perSecond = new Map<number, number>();
            const first = Math.min(...arrivals().values());
            for (const at of arrivals().values())
              perSecond.set(Math.floor((at - first) / 1000), (perSecond.get(Math.floor((at - first) / 1000)) ?? 0) + 1);
            const histogram = [...perSecond]
              .sort((a, b) => a[0] - b[0])
              .map(([s, n]) => `${s}s:${n}`)
              .join(' ');
            throw new Error(`${err.message}: ${arrivals().size} received (per second: ${histogram})`);
          },
        );
        const times = [...arrivals().values()].sort((a, b) => a - b);
        const rate = (times.length - 1) / ((times[times.length - 1] - times[0]) / 1000);
        // The busiest window of one second, sliding over the arrivals.
        let busiest = 0;
        for (let i = 0, j = 0; i < times.length; i++) {
          while (times[i] - times[j] >= 1000) j++;
          busiest = Math.max(busiest, i - j + 1);
        }
        const error = Math.abs(rate - THROTTLE_PER_SECOND) / THROTTLE_PER_SECOND;
        return {
          name: this.name,
          checks: [
            {
              what: `${total} events at a limit of ${THROTTLE_PER_SECOND}/s: ${rate.toFixed(2)}/s over ${((times[times.length - 1] - times[0]) / 1000).toFixed(1)} s (${(error * 100).toFixed(1)}% off, ≤ 5%); busiest second ${busiest}`,
              ok: error <= 0.05,
            },
          ],
        };
      });
    } finally {
      await deleteEndpoints(ctx, endpointIds);
      receiver.close();
    }
  },
};
