import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { spawnWorker, type BenchContext } from '../context.js';
import { freePort } from '../harness.js';
import { percentiles, steadyLoad } from '../steady-load.js';
import type { Scenario, ScenarioResult } from './index.js';

const INBOUND_RATE = Number(process.env.BENCH_INBOUND_RATE ?? 500);
const INBOUND_SECONDS = Number(process.env.BENCH_INBOUND_SECONDS ?? 30);
const INBOUND_WARM_UP_SECONDS = 3;
/** Processing may lag behind the load: every message stored and its webhook delivered within this after the load ends. */
const INBOUND_DRAIN_MS = 60_000;
const MEDIA_IMAGES = Number(process.env.BENCH_MEDIA_IMAGES ?? 2000);
const MEDIA_BYTES = 200 * 1024;
const APP_SECRET = 'bench-app-secret';

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const numberPool = Array.from({ length: 2000 }, (_, i) => `1917666${String(i).padStart(4, '0')}`);
const pick = <T>(items: T[]) => items[Math.floor(Math.random() * items.length)];
export const signature = (payload: string) => `sha256=${createHmac('sha256', APP_SECRET).update(payload).digest('hex')}`;

/** A `messages` notification of one message, as Meta posts it. */
export function notification(messageId: string, from: string, content: Record<string, unknown>): string {
  return JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '901',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '14155557102', phone_number_id: '900' },
              contacts: [{ profile: { name: `Customer ${from.slice(-4)}` }, wa_id: from }],
              messages: [{ from, id: messageId, timestamp: String(Math.floor(Date.now() / 1000)), ...content }],
            },
          },
        ],
      },
    ],
  });
}

/** A receiver of the channel's WhatsApp Message Webhooks: when each message's webhook first came, and how many came. */
export async function startMessageWebhookReceiver(): Promise<{
  server: Server;
  url: string;
  firstAt: Map<string, number>;
  count: Map<string, number>;
  withMedia: Set<string>;
}> {
  const firstAt = new Map<string, number>();
  const count = new Map<string, number>();
  const withMedia = new Set<string>();
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      const payload = JSON.parse(raw) as { messageId: string; mediaUrl: string | null };
      if (!firstAt.has(payload.messageId)) firstAt.set(payload.messageId, now());
      count.set(payload.messageId, (count.get(payload.messageId) ?? 0) + 1);
      if (payload.mediaUrl) withMedia.add(payload.messageId);
      res.end('ok');
    });
  });
  server.keepAliveTimeout = 60_000;
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${port}/wa`, firstAt, count, withMedia };
}

export async function cloudChannel(ctx: BenchContext, name: string, phoneNumber: string, webhookUrl: string): Promise<{ id: string }> {
  return ctx.admin('POST', `/admin/v1/workspaces/${ctx.workspaceId}/channels`, {
    name,
    type: 2,
    phoneNumber,
    webhookUrl,
    whatsApp: {
      provider: 'cloud-api',
      phoneNumberId: '900',
      wabaId: '901',
      accessToken: 'bench-token',
      appSecret: APP_SECRET,
      verifyToken: 'v',
    },
  });
}

async function waitUntil(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

/** Rows of `conversation_events` whose provider id starts with `prefix`: all, and distinct ids. */
async function storedEvents(ctx: BenchContext, prefix: string, extra = ''): Promise<{ rows: number; distinct: number }> {
  const client = new Client({ connectionString: ctx.databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ rows: string; distinct: string }>(
      `SELECT count(*) AS rows, count(DISTINCT source_id) AS distinct FROM conversation_events
        WHERE workspace_id = $1 AND source_id LIKE $2 ${extra}`,
      [ctx.workspaceId, `${prefix}%`],
    );
    return { rows: Number(rows[0].rows), distinct: Number(rows[0].distinct) };
  } finally {
    await client.end();
  }
}

/**
 * Meta's notifications at the HTTP edge: signed notifications of one text message each, at a
 * steady 500 requests/s for 30 s (after 3 s of the same load to warm up), from 2,000 numbers,
 * taken by the API process and processed by one worker process. Every request must be answered 200
 * with p99 ≤ 50 ms (the edge only verifies, queues and answers); every message must be stored
 * once and its webhook delivered within 60 s after the load ends.
 */
export const inboundEdgeScenario: Scenario = {
  name: `WhatsApp inbound: ${INBOUND_RATE} signed notifications/s for ${INBOUND_SECONDS} s`,
  async run(ctx): Promise<ScenarioResult> {
    const receiver = await startMessageWebhookReceiver();
    const storageDir = mkdtempSync(join(tmpdir(), 'bench-inbound-'));
    const channel = await cloudChannel(ctx, 'Bench inbound', '+14155557102', receiver.url);
    const worker = spawnWorker(ctx, { STORAGE_DIR: storageDir });
    try {
      await waitUntil(() => /Worker started/.test(worker.log), 30_000);
      const run = (seconds: number, prefix: string) =>
        steadyLoad({
          url: `${ctx.apiUrl}/v1/whatsapp/webhooks/${channel.id}`,
          headers: { 'content-type': 'application/json' },
          headersOf: (payload) => ({ 'x-hub-signature-256': signature(payload) }),
          body: (token) => notification(`wamid.in.${token}`, pick(numberPool), { type: 'text', text: { body: `Message ${token}` } }),
          rate: INBOUND_RATE,
          seconds,
          prefix,
          maxSockets: 128,
        });
      const warmUp = await run(INBOUND_WARM_UP_SECONDS, 'w');
      await waitUntil(() => [...warmUp.acceptedAt.keys()].every((token) => receiver.firstAt.has(`wamid.in.${token}`)), INBOUND_DRAIN_MS);

      const load = await run(INBOUND_SECONDS, 's');
      const loadEnd = now();
      const total = INBOUND_RATE * INBOUND_SECONDS;
      const ids = [...load.sentAt.keys()].map((token) => `wamid.in.${token}`);
      const drained = await waitUntil(() => ids.every((id) => receiver.firstAt.has(id)), INBOUND_DRAIN_MS);
      // Past the deadline, wait a little longer to report when the last one came (or how many never did).
      if (!drained) await waitUntil(() => ids.every((id) => receiver.firstAt.has(id)), 60_000);
      const delivered = ids.filter((id) => receiver.firstAt.has(id));
      const lastWebhookAfterLoad = delivered.length
        ? (Math.max(...delivered.map((id) => receiver.firstAt.get(id)!)) - loadEnd) / 1000
        : Infinity;
      const twice = ids.filter((id) => (receiver.count.get(id) ?? 0) > 1).length;
      const answered = percentiles([...load.acceptedAt].map(([token, at]) => at - load.sentAt.get(token)!));
      const stored = await storedEvents(ctx, 'wamid.in.s');
      return {
        name: this.name,
        checks: [
          {
            what: `${load.acceptedAt.size} of ${total} answered 200 (${load.non2xx} non-2xx, ${load.errors} errors); p50 ${answered.p50} ms, p95 ${answered.p95} ms, p99 ${answered.p99} ms ≤ 50 ms`,
            ok: load.acceptedAt.size === total && answered.p99 <= 50,
          },
          {
            what: `stored ${stored.rows} events for ${stored.distinct} of ${total} messages (once each)`,
            ok: stored.rows === total && stored.distinct === total,
          },
          {
            what: `webhooks of ${delivered.length} of ${total} messages, the last ${lastWebhookAfterLoad.toFixed(1)} s after the load ended (≤ 60 s), ${twice} twice`,
            ok: delivered.length === total && lastWebhookAfterLoad <= INBOUND_DRAIN_MS / 1000 && twice === 0,
          },
          {
            what: `worker peak RSS ${worker.peakRssMb()} MB; worker CPU ${worker.cpuSeconds().toFixed(1)} s, API CPU ${ctx.api.cpuSeconds().toFixed(1)} s over the run`,
            ok: true,
          },
        ],
      };
    } finally {
      await worker.stop();
      if (process.env.BENCH_VERBOSE) console.log(worker.log.slice(-3000));
      receiver.server.closeAllConnections();
      receiver.server.close();
      rmSync(storageDir, { recursive: true, force: true });
    }
  },
};

/**
 * Inbound media: 2,000 image messages of 200 KB queued first (signed notifications taken by the
 * API), then one worker process started: it records each message, fetches its file from the fake
 * Graph API (`GET /{media-id}`, then the URL, with the token), checks the SHA-256, stores it, and
 * sends the webhook. Target: ≥ 100 images/s from the worker's start to the last webhook, worker
 * peak RSS ≤ 250 MB.
 */
export const inboundMediaScenario: Scenario = {
  name: `WhatsApp inbound media: ${MEDIA_IMAGES} images of 200 KB, one worker`,
  async run(ctx): Promise<ScenarioResult> {
    const receiver = await startMessageWebhookReceiver();
    const storageDir = mkdtempSync(join(tmpdir(), 'bench-media-'));
    ctx.cloudApi.setMedia(randomBytes(MEDIA_BYTES));
    const channel = await cloudChannel(ctx, 'Bench media', '+14155557103', receiver.url);
    const url = `${ctx.apiUrl}/v1/whatsapp/webhooks/${channel.id}`;
    const ids = Array.from({ length: MEDIA_IMAGES }, (_, i) => `wamid.media.${i + 1}`);
    // Queue every message before the worker starts (32 requests at a time).
    for (let i = 0; i < ids.length; i += 32) {
      await Promise.all(
        ids.slice(i, i + 32).map(async (id, k) => {
          const payload = notification(id, pick(numberPool), {
            type: 'image',
            image: { mime_type: 'image/jpeg', sha256: ctx.cloudApi.mediaSha256, id: `55${i + k + 1}`, caption: `Photo ${i + k + 1}` },
          });
          const res = await fetch(url, {
            method: 'POST',
            body: payload,
            headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature(payload) },
          });
          if (res.status !== 200) throw new Error(`notification ${id} answered ${res.status}`);
        }),
      );
    }
    const startedAt = now();
    const worker = spawnWorker(ctx, { STORAGE_DIR: storageDir });
    try {
      await waitUntil(() => /Worker started/.test(worker.log), 30_000);
      const ready = now();
      const bootCpu = worker.cpuSeconds();
      await waitUntil(() => ids.every((id) => receiver.firstAt.has(id)), 300_000);
      const delivered = ids.filter((id) => receiver.firstAt.has(id));
      const withFile = ids.filter((id) => receiver.withMedia.has(id)).length;
      const last = Math.max(...delivered.map((id) => receiver.firstAt.get(id)!));
      const downloads = [...ctx.cloudApi.downloads.values()];
      const perSecond = withFile / ((last - ready) / 1000);
      const downloadRate = downloads.length / ((Math.max(...downloads) - Math.min(...downloads)) / 1000);
      const stored = await storedEvents(ctx, 'wamid.media.', `AND attachment->>'mediaStatus' = 'Stored'`);
      const rss = worker.peakRssMb();
      const cpu = worker.cpuSeconds() - bootCpu;
      return {
        name: this.name,
        checks: [
          {
            what: `${withFile} of ${MEDIA_IMAGES} stored with their webhook, ${perSecond.toFixed(0)} images/s from the worker's start (${((ready - startedAt) / 1000).toFixed(1)} s boot not counted) to the last webhook ≥ 100/s; downloads alone ${downloadRate.toFixed(0)}/s`,
            ok: withFile === MEDIA_IMAGES && perSecond >= 100,
          },
          { what: `${stored.distinct} events with their file stored`, ok: stored.distinct === MEDIA_IMAGES },
          {
            what: `worker CPU after boot ${cpu.toFixed(1)} s, ${((cpu * 1000) / MEDIA_IMAGES).toFixed(1)} ms per image (${(MEDIA_IMAGES / cpu).toFixed(0)} images per CPU-second)`,
            ok: true,
          },
          { what: `worker peak RSS ${rss} MB ≤ 250 MB`, ok: rss <= 250 },
        ],
      };
    } finally {
      await worker.stop();
      if (process.env.BENCH_VERBOSE) console.log(worker.log.slice(-3000));
      receiver.server.closeAllConnections();
      receiver.server.close();
      rmSync(storageDir, { recursive: true, force: true });
    }
  },
};
