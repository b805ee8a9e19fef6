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

/** A `messages` notification of one message, as Meta posts it (`extra`: `referral`, `context`, …). */
export function notification(
  messageId: string,
  from: string,
  content: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): string {
  const message = { from, id: messageId, timestamp: String(Math.floor(Date.now() / 1000)), ...extra, ...content };
  return envelope('messages', { contacts: [{ profile: { name: `Customer ${from.slice(-4)}` }, wa_id: from }], messages: [message] });
}

/** An `smb_message_echoes` notification: a message the business sent to `to` from the WhatsApp Business app. */
function echoNotification(messageId: string, to: string, content: Record<string, unknown>): string {
  const echo = { from: '14155557102', to, id: messageId, timestamp: String(Math.floor(Date.now() / 1000)), ...content };
  return envelope('smb_message_echoes', {
    contacts: [{ profile: { name: `Customer ${to.slice(-4)}` }, wa_id: to }],
    message_echoes: [echo],
  });
}

function envelope(field: string, value: Record<string, unknown>): string {
  const metadata = { display_phone_number: '14155557102', phone_number_id: '900' };
  return JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [{ id: '901', changes: [{ field, value: { messaging_product: 'whatsapp', metadata, ...value } }] }],
  });
}

/**
 * The 2026 mix of the inbound scenario, by the message's place in the load (out of 50): 3 edits
 * and 4 reactions of earlier (warm-up) messages, 3 Business-app echoes, 5 messages from an ad
 * (referral), 35 plain texts. Each is one notification; `webhookKey` is what its webhook is known by.
 */
type MixedKind = 'text' | 'referral' | 'reaction' | 'edit' | 'echo';
const MIX: MixedKind[] = [
  ...Array<MixedKind>(3).fill('edit'),
  ...Array<MixedKind>(4).fill('reaction'),
  ...Array<MixedKind>(3).fill('echo'),
  ...Array<MixedKind>(5).fill('referral'),
  ...Array<MixedKind>(35).fill('text'),
];
const REFERRAL = {
  source_url: 'https://fb.me/bench',
  source_id: '1202263058',
  source_type: 'ad',
  headline: 'Bench ad',
  media_type: 'image',
  ctwa_clid: 'bench-clid',
};

function mixedNotification(kind: MixedKind, id: string, from: string, earlier: string): { body: string; webhookKey: string } {
  const text = { type: 'text', text: { body: `Message ${id}` } };
  switch (kind) {
    case 'edit':
      return {
        body: notification(id, from, {
          type: 'edit',
          edit: { original_message_id: earlier, message: { type: 'text', text: { body: `Edited ${id}` } } },
        }),
        webhookKey: `${earlier}#Edited`,
      };
    case 'reaction':
      return { body: notification(id, from, { type: 'reaction', reaction: { message_id: earlier, emoji: '👍' } }), webhookKey: id };
    case 'echo':
      return { body: echoNotification(id, from, text), webhookKey: id };
    case 'referral':
      return { body: notification(id, from, text, { referral: REFERRAL }), webhookKey: id };
    default:
      return { body: notification(id, from, text), webhookKey: id };
  }
}

/** What a message webhook is known by: an edit's or deletion's by the message it changed and the action. */
export type WebhookKeyOf = (payload: { messageId: string; action?: string; status?: string }) => string;
const messageOrChange: WebhookKeyOf = (payload) =>
  payload.action === 'Edited' || payload.action === 'Revoked' ? `${payload.messageId}#${payload.action}` : payload.messageId;

/** A receiver of the channel's WhatsApp Message Webhooks: when each message's webhook first came (by {@link WebhookKeyOf}), and how many came. */
export async function startMessageWebhookReceiver(keyOf: WebhookKeyOf = messageOrChange): Promise<{
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
      const payload = JSON.parse(raw) as { messageId: string; mediaUrl: string | null; action?: string; status?: string };
      const key = keyOf(payload);
      if (!firstAt.has(key)) firstAt.set(key, now());
      count.set(key, (count.get(key) ?? 0) + 1);
      if (payload.mediaUrl) withMedia.add(key);
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

/** Polls `check` every 50 ms until it holds (true) or `timeoutMs` passed (false). */
export async function waitUntil(check: () => boolean, timeoutMs: number): Promise<boolean> {
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
 * Meta's notifications at the HTTP edge: signed notifications of one message each, at a steady
 * 500 requests/s for 30 s (after 3 s of plain texts to warm up), from 2,000 numbers, taken by the
 * API process and processed by one worker process. The measured load is the 2026 mix ({@link MIX}):
 * texts, messages from an ad, reactions and edits of warm-up messages, Business-app echoes. Every
 * request must be answered 200 with p99 ≤ 50 ms (the edge only verifies, queues and answers); every
 * message must be stored once (an edit changes its original instead) and its webhook delivered
 * within 60 s after the load ends.
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
      const sent = { count: 0, edits: 0 };
      const warmUpIds: string[] = [];
      const expected = new Map<string, string>(); // token → the key of its webhook
      const kinds = new Map<MixedKind, number>();
      const run = (seconds: number, prefix: string, mixed: boolean) =>
        steadyLoad({
          url: `${ctx.apiUrl}/v1/whatsapp/webhooks/${channel.id}`,
          headers: { 'content-type': 'application/json' },
          headersOf: (payload) => ({ 'x-hub-signature-256': signature(payload) }),
          body: (token) => {
            const id = `wamid.in.${token}`;
            if (!mixed) {
              warmUpIds.push(id);
              return notification(id, pick(numberPool), { type: 'text', text: { body: `Message ${token}` } });
            }
            const kind = MIX[sent.count++ % MIX.length];
            kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
            // Each edit changes a warm-up message of its own (900 edits, 1,500 warm-up messages); reactions take any.
            const earlier = kind === 'edit' ? warmUpIds[sent.edits++ % warmUpIds.length] : pick(warmUpIds);
            const { body, webhookKey } = mixedNotification(kind, id, pick(numberPool), earlier);
            expected.set(token, webhookKey);
            return body;
          },
          rate: INBOUND_RATE,
          seconds,
          prefix,
          maxSockets: 128,
        });
      const warmUp = await run(INBOUND_WARM_UP_SECONDS, 'w', false);
      await waitUntil(() => [...warmUp.acceptedAt.keys()].every((token) => receiver.firstAt.has(`wamid.in.${token}`)), INBOUND_DRAIN_MS);

      const load = await run(INBOUND_SECONDS, 's', true);
      const loadEnd = now();
      const total = INBOUND_RATE * INBOUND_SECONDS;
      const keys = [...new Set([...load.sentAt.keys()].map((token) => expected.get(token)!))];
      const drained = await waitUntil(() => keys.every((key) => receiver.firstAt.has(key)), INBOUND_DRAIN_MS);
      // Past the deadline, wait a little longer to report when the last one came (or how many never did).
      if (!drained) await waitUntil(() => keys.every((key) => receiver.firstAt.has(key)), 60_000);
      const delivered = keys.filter((key) => receiver.firstAt.has(key));
      const lastWebhookAfterLoad = delivered.length
        ? (Math.max(...delivered.map((key) => receiver.firstAt.get(key)!)) - loadEnd) / 1000
        : Infinity;
      const twice = keys.filter((key) => (receiver.count.get(key) ?? 0) > 1).length;
      const answered = percentiles([...load.acceptedAt].map(([token, at]) => at - load.sentAt.get(token)!));
      const edits = kinds.get('edit') ?? 0;
      const stored = await storedEvents(ctx, 'wamid.in.s');
      const mix = [...kinds].map(([kind, n]) => `${n} ${kind}`).join(', ');
      return {
        name: this.name,
        checks: [
          {
            what: `${load.acceptedAt.size} of ${total} answered 200 (${load.non2xx} non-2xx, ${load.errors} errors); p50 ${answered.p50} ms, p95 ${answered.p95} ms, p99 ${answered.p99} ms ≤ 50 ms`,
            ok: load.acceptedAt.size === total && answered.p99 <= 50,
          },
          {
            what: `mix: ${mix}; stored ${stored.rows} events for ${stored.distinct} of ${total - edits} new messages (once each; the ${edits} edits change warm-up messages)`,
            ok: stored.rows === total - edits && stored.distinct === total - edits,
          },
          {
            what: `webhooks of ${delivered.length} of ${keys.length} messages and edits, the last ${lastWebhookAfterLoad.toFixed(1)} s after the load ended (≤ 60 s), ${twice} twice`,
            ok: delivered.length === keys.length && lastWebhookAfterLoad <= INBOUND_DRAIN_MS / 1000 && twice === 0,
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
