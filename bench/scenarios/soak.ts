import { mkdirSync, writeFileSync } from 'node:fs';
import Redis from 'ioredis';
import { Client } from 'pg';
import { mustStandInForAutovacuum } from '../autovacuum-stand-in.js';
import { panelsSvg, svgToPng, type Panel } from '../chart.js';
import { startWorker, type BenchContext } from '../context.js';
import { percentiles, steadyLoad, type SteadyLoadOptions } from '../steady-load.js';
import type { Scenario, ScenarioResult } from './index.js';
import { IVR_WORKER_ENV, ivrBody, sandboxVoiceChannel, startOutcomeReceiver } from './outbound-ivr.js';
import { startEventReceiver } from './webhook-endpoints.js';
import { sendBody, storeSyncedTemplate, TEMPLATE } from './whatsapp.js';
import { cloudChannel, notification, signature, startMessageWebhookReceiver } from './whatsapp-inbound.js';

const MINUTES = Number(process.env.BENCH_SOAK_MINUTES ?? 30);
const SEND_RATE = Number(process.env.BENCH_SOAK_SEND_RATE ?? 50);
const INBOUND_RATE = Number(process.env.BENCH_SOAK_INBOUND_RATE ?? 20);
const IVR_RATE = Number(process.env.BENCH_SOAK_IVR_RATE ?? 10);
/** BENCH_SOAK_EVENT_ENDPOINT=1 adds a webhook endpoint taking every domain event (see the README on what it does to the API now). */
const WITH_EVENT_ENDPOINT = process.env.BENCH_SOAK_EVENT_ENDPOINT === '1';
/** Retention of finished outbox rows, webhook deliveries and sandbox messages: a tenth of the run (3 min of 30). */
const RETENTION_SECONDS = Number(process.env.BENCH_SOAK_RETENTION_SECONDS ?? Math.max(10, MINUTES * 6));
/** The flatness check leaves out the first third of the run (warm-up): the last 20 minutes of 30. */
const WINDOW_FROM_MINUTE = MINUTES - Math.round((MINUTES * 2) / 3);
const GROWTH_LIMIT = 0.1;
/**
 * Each load's numbers: once every number has its contact and conversation, those tables stop
 * growing. Sends go to more of them: Meta's pair rate (one message to a recipient per 6 s, which the
 * worker keeps) would hold back 50 sends/s to 500 numbers.
 */
const NUMBERS_PER_LOAD = 500;
const SEND_NUMBERS = 2000;
const DRAIN_MS = 60_000;
/** Tables sampled whatever their size, beside the largest few. */
const WATCHED_TABLES = ['outbox_messages', 'webhook_deliveries', 'conversation_events', 'send_claims'];
/**
 * The tables the retention settings bound, whose size is judged. The others drawn hold the
 * service's records (messages, calls, contacts), which grow with traffic by design.
 */
const RETAINED_TABLES = new Set(['outbox_messages', 'webhook_deliveries', 'whatsapp_sandbox_messages', 'whatsapp_intake', 'send_claims']);
const RETENTION = `${RETENTION_SECONDS}s`;
const LARGEST_TABLES = 5;

type Load = 'sends' | 'inbound' | 'ivr';

interface Sample {
  minute: number;
  apiRssMb: number;
  workerRssMb: number;
  /** The whole Redis server's `used_memory` (shared with other users of the server). */
  redisUsedMb: number;
  /** What this run's keys take (MEMORY USAGE of each key under the run's prefix). */
  redisRunKeysMb: number;
  redisRunKeys: number;
  /** Requests answered during the minute before the sample, and their p99 by load and over all. */
  requests: number;
  p99Ms: Record<Load | 'all', number>;
  tablesMb: Record<string, number>;
  /** Live rows by table (PostgreSQL's estimate): tells rows kept from space not yet reused. */
  tableRows: Record<string, number>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const megabytes = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
const numbers = (prefix: string, count = NUMBERS_PER_LOAD) =>
  Array.from({ length: count }, (_, i) => `${prefix}${String(i).padStart(4, '0')}`);
const pick = <T>(items: T[]) => items[Math.floor(Math.random() * items.length)];

/** Every table's total size (heap, indexes, TOAST) in MB, and its live rows. */
async function tableSizes(client: Client): Promise<Pick<Sample, 'tablesMb' | 'tableRows'>> {
  const { rows } = await client.query<{ name: string; bytes: string; live: string }>(
    `SELECT relname AS name, pg_total_relation_size(relid) AS bytes, n_live_tup AS live FROM pg_stat_user_tables WHERE schemaname = 'public'`,
  );
  return {
    tablesMb: Object.fromEntries(rows.map((row) => [row.name, megabytes(Number(row.bytes))])),
    tableRows: Object.fromEntries(rows.map((row) => [row.name, Number(row.live)])),
  };
}

async function redisMemory(redis: Redis, prefix: string): Promise<Pick<Sample, 'redisUsedMb' | 'redisRunKeysMb' | 'redisRunKeys'>> {
  const usedMemory = Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1] ?? 0);
  let bytes = 0;
  let keys = 0;
  for await (const batch of redis.scanStream({ match: `${prefix}:*`, count: 1000 }) as AsyncIterable<string[]>) {
    if (batch.length === 0) continue;
    const sizes = (await redis.pipeline(batch.map((key) => ['memory', 'usage', key])).exec()) ?? [];
    bytes += sizes.reduce((sum, [, size]) => sum + Number(size ?? 0), 0);
    keys += batch.length;
  }
  return { redisUsedMb: megabytes(usedMemory), redisRunKeysMb: megabytes(bytes), redisRunKeys: keys };
}

/**
 * How much a series grew over the window: the rise of its least-squares line from the window's
 * first minute to its last, over the series' mean in the window. A line rather than last ÷ first,
 * so that one noisy minute does not decide the verdict.
 */
function growth(points: Array<[number, number]>): number {
  const inWindow = points.filter(([minute, value]) => minute >= WINDOW_FROM_MINUTE && Number.isFinite(value));
  if (inWindow.length < 2) return 0;
  const n = inWindow.length;
  const meanX = inWindow.reduce((sum, [x]) => sum + x, 0) / n;
  const meanY = inWindow.reduce((sum, [, y]) => sum + y, 0) / n;
  const covariance = inWindow.reduce((sum, [x, y]) => sum + (x - meanX) * (y - meanY), 0);
  const variance = inWindow.reduce((sum, [x]) => sum + (x - meanX) ** 2, 0);
  const span = inWindow[n - 1][0] - inWindow[0][0];
  return meanY === 0 ? 0 : ((covariance / variance) * span) / meanY;
}

/** The series the chart draws and the flatness check judges (the shared server's Redis memory is drawn only). */
function seriesOf(samples: Sample[]): Array<Panel & { checked: boolean; growth: number }> {
  const last = samples[samples.length - 1].tablesMb;
  const largest = Object.keys(last)
    .sort((a, b) => last[b] - last[a])
    .slice(0, LARGEST_TABLES);
  const tables = [...new Set([...largest, ...WATCHED_TABLES])].filter((table) => table in last);
  const series = (title: string, unit: string, value: (sample: Sample) => number, checked = true) => {
    const points = samples.map((sample): [number, number] => [sample.minute, value(sample)]);
    const rise = growth(points);
    const note = `${rise >= 0 ? '+' : ''}${(rise * 100).toFixed(1)}% from minute ${WINDOW_FROM_MINUTE}`;
    return { title, unit, checked, points, growth: rise, note };
  };
  return [
    series('API RSS', 'MB', (s) => s.apiRssMb),
    series('worker RSS', 'MB', (s) => s.workerRssMb),
    series('p99, all requests', 'ms', (s) => s.p99Ms.all),
    series('Redis, this run’s keys', 'MB', (s) => s.redisRunKeysMb),
    series('Redis used_memory, whole server', 'MB', (s) => s.redisUsedMb, false),
    ...tables.map((table) => series(table, 'MB', (s) => s.tablesMb[table] ?? 0, RETAINED_TABLES.has(table))),
  ];
}

function printTable(samples: Sample[], series: Panel[]): void {
  const header = ['min', 'requests', 'p99 sends', 'p99 inbound', 'p99 IVR', 'Redis keys', ...series.map((s) => `${s.title} ${s.unit}`)];
  const lines = [header, header.map(() => '---')].map((cells) => `| ${cells.join(' | ')} |`);
  samples.forEach((sample, i) => {
    const cells = [
      sample.minute,
      sample.requests,
      sample.p99Ms.sends,
      sample.p99Ms.inbound,
      sample.p99Ms.ivr,
      sample.redisRunKeys,
      ...series.map((s) => s.points[i][1]),
    ];
    lines.push(`| ${cells.join(' | ')} |`);
  });
  console.log(`\n${lines.join('\n')}\n`);
}

async function waitUntil(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check() && Date.now() < deadline) await sleep(200);
}

/**
 * The mixed load at a steady rate for BENCH_SOAK_MINUTES (30): WhatsApp sends through a cloud-api
 * channel to the fake Cloud API, signed inbound notifications on the same channel (each message's
 * webhook to a receiver here), sandbox IVR calls at zero ring and talk time (each outcome webhook to
 * a receiver here), with one worker beside the API (BENCH_SOAK_EVENT_ENDPOINT=1: and a webhook endpoint taking every domain event).
 * Every minute: API and worker RSS, Redis memory, the largest tables' sizes and the p99 of the
 * load's own requests answered in that minute. Retention is cut to a tenth of the run so that the
 * pruning acts within it. Writes bench/results/soak-<time>.png and .json.
 */
export const soakScenario: Scenario = {
  name: `soak: the mixed load at a steady rate for ${MINUTES} min`,
  onlyWhenNamed: true,
  // API and worker alike: short enough to act within the run. Bull's finished jobs too (which must
  // outlast the relay's recovery horizon: half of it here).
  apiEnv: {
    OUTBOX_RETENTION: RETENTION,
    WEBHOOK_DELIVERY_RETENTION: RETENTION,
    SANDBOX_MESSAGE_RETENTION: RETENTION,
    QUEUE_COMPLETED_JOB_RETENTION: RETENTION,
    OUTBOX_RECOVER_AFTER_MS: String(Math.max(1000, RETENTION_SECONDS * 500)),
    RETENTION_INTERVAL: `${Math.max(1, Math.round(RETENTION_SECONDS / 3))}s`,
  },
  async run(ctx: BenchContext): Promise<ScenarioResult> {
    const messageWebhooks = await startMessageWebhookReceiver();
    const outcomes = await startOutcomeReceiver();
    const events = await startEventReceiver();
    const endpoint = WITH_EVENT_ENDPOINT ? await ctx.call('POST', '/v1/webhook-endpoints', { url: events.url('/events') }) : undefined;
    const channel = await cloudChannel(ctx, 'Soak', '+14155557300', messageWebhooks.url);
    await storeSyncedTemplate(ctx, channel.id, TEMPLATE);
    // A cloud-api channel reaches 1,000 recipients a day by default.
    await ctx.admin('PUT', `/admin/v1/channels/${channel.id}/limits`, { messagingLimit: 10000 });
    const voiceChannelId = await sandboxVoiceChannel(ctx, 'Soak IVR');
    const worker = await startWorker(ctx, IVR_WORKER_ENV);
    const database = new Client({ connectionString: ctx.databaseUrl });
    await database.connect();
    const redis = new Redis(ctx.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 2 });
    const latencies: Record<Load, number[]> = { sends: [], inbound: [], ivr: [] };
    const sendTo = numbers('1917888', SEND_NUMBERS);
    const inboundFrom = numbers('1917777');
    const ivrTo = numbers('96650000');
    const runId = `soak${process.pid}`;
    const json = { 'content-type': 'application/json' };
    const bearer = { authorization: `Bearer ${ctx.token}`, ...json };
    const steady = (load: Load, rate: number, options: Pick<SteadyLoadOptions, 'url' | 'headers' | 'headersOf' | 'body'>) =>
      steadyLoad({
        ...options,
        rate,
        seconds: MINUTES * 60,
        prefix: `${runId}.${load}.`,
        onAnswer: (answer) => latencies[load].push(answer.latencyMs),
      });
    try {
      const sample = async (minute: number): Promise<Sample> => {
        const taken = Object.fromEntries(Object.entries(latencies).map(([load, values]) => [load, values.splice(0)])) as Record<
          Load,
          number[]
        >;
        const all = Object.values(taken).flat();
        const p99 = (values: number[]) => (values.length ? percentiles(values).p99 : NaN);
        return {
          minute,
          apiRssMb: ctx.api.rssMb(),
          workerRssMb: worker.rssMb(),
          ...(await redisMemory(redis, ctx.env.REDIS_KEY_PREFIX)),
          requests: all.length,
          p99Ms: { sends: p99(taken.sends), inbound: p99(taken.inbound), ivr: p99(taken.ivr), all: p99(all) },
          ...(await tableSizes(database)),
        };
      };
      const vacuumEachMinute = await mustStandInForAutovacuum(database, 'soak');
      const started = Date.now();
      const samples: Sample[] = [await sample(0)];
      const sampling = (async () => {
        for (let minute = 1; minute <= MINUTES; minute++) {
          await sleep(started + minute * 60_000 - Date.now());
          const s = await sample(minute);
          samples.push(s);
          if (vacuumEachMinute) await database.query('VACUUM (ANALYZE)');
          console.log(
            `  minute ${minute}: ${s.requests} requests, p99 ${s.p99Ms.all} ms; API ${s.apiRssMb} MB, worker ${s.workerRssMb} MB; Redis run keys ${s.redisRunKeysMb} MB`,
          );
        }
      })();
      const [sends, inbound, calls] = await Promise.all([
        steady('sends', SEND_RATE, {
          url: `${ctx.apiUrl}/v1/whatsapp/service-account/sendTemplate`,
          headers: bearer,
          body: (token) => sendBody(channel.id, token, pick(sendTo)),
        }),
        steady('inbound', INBOUND_RATE, {
          url: `${ctx.apiUrl}/v1/whatsapp/webhooks/${channel.id}`,
          headers: json,
          headersOf: (payload) => ({ 'x-hub-signature-256': signature(payload) }),
          body: (token) => notification(`wamid.${token}`, pick(inboundFrom), { type: 'text', text: { body: `Message ${token}` } }),
        }),
        steady('ivr', IVR_RATE, {
          url: `${ctx.apiUrl}/v1/outbound-ivr`,
          headers: bearer,
          body: (token) => ivrBody(voiceChannelId, outcomes.url('/outcome'), token, pick(ivrTo)),
        }),
      ]);
      await sampling;

      const sent = [...sends.acceptedAt.keys()];
      const received = [...inbound.acceptedAt.keys()].map((token) => `wamid.${token}`);
      const called = [...calls.acceptedAt.keys()];
      await waitUntil(
        () =>
          sent.every((token) => ctx.cloudApi.arrivals.has(token)) &&
          received.every((id) => messageWebhooks.firstAt.has(id)) &&
          called.every((id) => outcomes.outcomes.has(id)),
        DRAIN_MS,
      );
      const series = seriesOf(samples);
      printTable(samples, series);
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      mkdirSync('bench/results', { recursive: true });
      const chartTitle = `Soak: ${SEND_RATE} sends/s, ${INBOUND_RATE} inbound/s, ${IVR_RATE} IVR calls/s for ${MINUTES} min (retention ${RETENTION}); shaded: warm-up`;
      writeFileSync(`bench/results/soak-${stamp}.png`, svgToPng(panelsSvg(chartTitle, series, WINDOW_FROM_MINUTE)));
      writeFileSync(
        `bench/results/soak-${stamp}.json`,
        JSON.stringify({ minutes: MINUTES, rates: { SEND_RATE, INBOUND_RATE, IVR_RATE }, retention: RETENTION, samples }, null, 2),
      );
      console.log(`  chart: bench/results/soak-${stamp}.png`);

      const arrivedTwice = sent.filter((token) => (ctx.cloudApi.arrivals.get(token)?.length ?? 0) > 1).length;
      const webhooksTwice = received.filter((id) => (messageWebhooks.count.get(id) ?? 0) > 1).length;
      const answers = (load: { sentAt: Map<string, number>; acceptedAt: Map<string, number>; non2xx: number; errors: number }) =>
        `${load.acceptedAt.size} of ${load.sentAt.size} accepted (${load.non2xx} non-2xx, ${load.errors} errors)`;
      const allAccepted = [sends, inbound, calls].every((load) => load.acceptedAt.size === load.sentAt.size);
      return {
        name: this.name,
        checks: [
          ...series.map((s) => {
            const inWindow = samples.filter((sample) => sample.minute >= WINDOW_FROM_MINUTE);
            const values = s.points.filter(([minute]) => minute >= WINDOW_FROM_MINUTE).map(([, value]) => value);
            const rows =
              s.title in inWindow[0].tableRows ? ` (live rows ${inWindow.map((sample) => sample.tableRows[s.title]).join(', ')})` : '';
            return {
              what: `${s.title} ${values[0]}→${values[values.length - 1]} ${s.unit}${rows} from minute ${WINDOW_FROM_MINUTE}, growth ${(s.growth * 100).toFixed(1)}%${s.checked ? ` ≤ ${GROWTH_LIMIT * 100}%` : ' (not judged)'}`,
              ok: !s.checked || s.growth <= GROWTH_LIMIT,
            };
          }),
          { what: `sends ${answers(sends)}, inbound ${answers(inbound)}, IVR calls ${answers(calls)}`, ok: allAccepted },
          {
            what: `arrived at the fake Cloud API ${sent.filter((token) => ctx.cloudApi.arrivals.has(token)).length} of ${sent.length} sends (${arrivedTwice} twice)`,
            ok: sent.every((token) => ctx.cloudApi.arrivals.has(token)) && arrivedTwice === 0,
          },
          {
            what: `message webhooks for ${received.filter((id) => messageWebhooks.firstAt.has(id)).length} of ${received.length} inbound messages (${webhooksTwice} twice)`,
            ok: received.every((id) => messageWebhooks.firstAt.has(id)) && webhooksTwice === 0,
          },
          {
            what: `outcome webhooks for ${called.filter((id) => outcomes.outcomes.has(id)).length} of ${called.length} calls`,
            ok: called.every((id) => outcomes.outcomes.has(id)),
          },
          ...(endpoint
            ? [{ what: `${events.arrivals.get('/events')?.size ?? 0} domain events at the endpoint taking all`, ok: true }]
            : []),
          {
            what: `worker peak RSS ${worker.peakRssMb()} MB; CPU over the run: worker ${worker.cpuSeconds().toFixed(0)} s, API ${ctx.api.cpuSeconds().toFixed(0)} s`,
            ok: true,
          },
        ],
      };
    } finally {
      await worker.stop();
      if (process.env.BENCH_VERBOSE) console.log(worker.log.slice(-3000));
      await database.end();
      redis.disconnect();
      if (endpoint) await ctx.call('DELETE', `/v1/webhook-endpoints/${endpoint.id}`);
      messageWebhooks.server.closeAllConnections();
      messageWebhooks.server.close();
      outcomes.close();
      events.close();
    }
  },
};
