import { Client } from 'pg';
import { freePort, NodeProcess } from '../harness.js';
import { StatementRelay, statementLines } from '../statement-relay.js';
import { spawnWorker } from '../context.js';
import { CostMeter, type Cost } from '../cost-meter.js';
import { percentiles, steadyLoad } from '../steady-load.js';
import { PHONE_NUMBER_ID, WABA_ID } from '../../test/support/cloud-notifications.js';
import { sendBody, storeSyncedTemplate, TEMPLATE } from './whatsapp.js';
import { startMessageWebhookReceiver, waitUntil } from './whatsapp-inbound.js';
import type { Scenario, ScenarioResult } from './index.js';

/** The loop rates tried in turn (messages/s), up to the first that fails. */
const RATES = (process.env.BENCH_LOOP_RATES ?? '10,20,30,50,75,100,150,200,300,500,1000').split(',').map(Number);
const STEP_SECONDS = Number(process.env.BENCH_LOOP_SECONDS ?? 20);
/** Every status and reply webhook must come within this after a step's last send. */
/** A step's drain: long enough for a notification retried through the intake's whole backoff (1 + 3 + 7 + 15 s). */
const DRAIN_MS = 45_000;
/** BENCH_LOOP_STATEMENTS=1: each step prints its statements by text (the profile of statements per loop). */
const SHOW_STATEMENTS = process.env.BENCH_LOOP_STATEMENTS === '1';
/**
 * Recipients, round-robin: each gets a message every NUMBERS / rate s, which keeps within Meta's
 * pair rate (one per 6 s, which the worker enforces) up to 200/s; raise it for higher rates.
 */
const NUMBERS = Number(process.env.BENCH_LOOP_NUMBERS ?? 1200);
/** The warm-up gives every number its contact and conversation, at a rate the machine takes. */
const WARM_UP_RATE = 40;
const REPLY_EVERY = 10;
const P99_LIMIT_MS = 50;
const APP_SECRET = 'bench-loop-app-secret';
const APPLICATION_NAME = 'bench-message-loop';

const numbers = Array.from({ length: NUMBERS }, (_, i) => `1917444${String(i).padStart(4, '0')}`);
let nextNumber = 0;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The processes serving one side of the comparison, and where its HTTP edge is. */
interface Side {
  name: 'API' | 'baseline';
  url: string;
  processes: Record<string, NodeProcess>;
}

/** One step of the ladder: its checks and its cost per loop. */
interface Step {
  rate: number;
  /** Every message, status and webhook once, and the API's p99 within the limit. */
  ok: boolean;
  /** Every send accepted and at the fake once, with no backlog (p50 ≤ 1 s). */
  keptUp: boolean;
  messages: number;
  cost: Cost;
  lines: string[];
}

/**
 * The message loop at Meta's pace: Send Template at a steady rate through a cloud-api channel; the
 * fake Cloud API answers each send and posts signed sent, delivered and read notifications within
 * a second (several statuses a notification when they fall together) and a text reply for one
 * message in ten; every status change and reply becomes a WhatsApp Message Webhook to a receiver on
 * 127.0.0.1. Rates rise step by step until a step fails (a message, status or webhook missing or
 * twice, or the API's p99 over 50 ms); the cost per loop is CPU by process over the step and its
 * drain, and statements counted by a relay in front of PostgreSQL ({@link ../pg-statement-counter.ts}).
 * The bare baseline (`baselines/bare-message-loop.ts`) then runs the same loop at the rate found.
 */
export const messageLoopScenario: Scenario = {
  name: 'message loop: templates, Meta status notifications and replies, webhooks',
  onlyWhenNamed: true,
  async run(ctx): Promise<ScenarioResult> {
    const receiver = await startMessageWebhookReceiver((p) => (p.action === 'StatusChanged' ? `${p.messageId}#${p.status}` : p.messageId));
    const channel = await ctx.admin('POST', `/admin/v1/workspaces/${ctx.workspaceId}/channels`, {
      name: 'Bench loop',
      type: 2,
      phoneNumber: '+14155557104',
      webhookUrl: receiver.url,
      whatsApp: {
        provider: 'cloud-api',
        phoneNumberId: PHONE_NUMBER_ID,
        wabaId: WABA_ID,
        accessToken: 'bench-token',
        appSecret: APP_SECRET,
        verifyToken: 'v',
      },
    });
    await storeSyncedTemplate(ctx, channel.id, TEMPLATE);
    await ctx.admin('PUT', `/admin/v1/channels/${channel.id}/limits`, { throughputPerSecond: 1000, messagingLimit: null });
    const counter = await StatementRelay.start(ctx.databaseUrl, APPLICATION_NAME);
    const databaseUrl = counter.databaseUrl;
    // Notifications not processed yet (waiting for a retry, say): the drain is not over while there are any.
    const intake = new Client({ connectionString: ctx.databaseUrl });
    await intake.connect();
    let intakeIdle = true;
    const watchIntake = setInterval(() => {
      intake
        .query('SELECT EXISTS (SELECT 1 FROM whatsapp_intake WHERE processed_at IS NULL) AS pending')
        .then(({ rows }) => (intakeIdle = !rows[0].pending))
        .catch(() => (intakeIdle = false));
    }, 500);
    let side: Side | undefined;
    let step = 0;
    try {
      await sleep(300);
      /** One step at `rate`: sends for STEP_SECONDS, then waits for every webhook; measures the whole span. */
      const runStep = async (current: Side, rate: number, seconds: number): Promise<Step> => {
        const prefix = `${current.name[0]}${++step}x`;
        const before = await ctx.cloudApi.notifierStats();
        const statementsBefore = await counter.texts();
        const meter = await CostMeter.start({
          databaseUrl: ctx.databaseUrl,
          redisUrl: ctx.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
          applicationName: APPLICATION_NAME,
          statementsUrl: counter.statementsUrl,
          processes: Object.fromEntries(Object.entries(current.processes).map(([name, p]) => [name, p.child.pid!])),
        });
        const load = await steadyLoad({
          url: `${current.url}/v1/whatsapp/service-account/sendTemplate`,
          headers: { authorization: `Bearer ${ctx.token}`, 'content-type': 'application/json' },
          body: (token) => sendBody(channel.id, token, numbers[nextNumber++ % numbers.length]),
          rate,
          seconds,
          prefix,
        });
        const tokens = [...load.acceptedAt.keys()];
        // Meta's last notifications come about 1.3 s after the last send reached it.
        const allSent = await waitUntil(() => tokens.every((t) => ctx.cloudApi.arrivals.has(t)), DRAIN_MS);
        await sleep(1500);
        const replies = (await ctx.cloudApi.notifierStats()).replyIds.filter(([token]) => token.startsWith(prefix)).map(([, id]) => id);
        const keys = [...tokens.flatMap((t) => ['Sent', 'Delivered', 'Read'].map((s) => `wamid.${t}#${s}`)), ...replies];
        // Until every webhook came, or none came for 3 s with no notification left to process (a status
        // the service dropped never comes; idling on would bill its wait to the loop).
        const quietFor = quietDetector(receiver.count, 3000);
        await waitUntil(() => keys.every((k) => receiver.firstAt.has(k)) || (quietFor() && intakeIdle), DRAIN_MS);
        const drained = keys.every((k) => receiver.firstAt.has(k));
        const cost = await meter.stop();
        const statementsAfter = await counter.texts();
        // A step that fell behind leaves work in flight: let it finish before the next step is measured.
        if (!drained) await quiet(receiver.count);
        const after = await ctx.cloudApi.notifierStats();
        const edge = percentiles(after.latenciesMs.slice(before.latenciesMs.length));
        const sends = percentiles([...load.acceptedAt].map(([t, at]) => at - load.sentAt.get(t)!));
        const arrivedOnce = tokens.filter((t) => ctx.cloudApi.arrivals.get(t)?.length === 1).length;
        const webhooksOnce = keys.filter((k) => receiver.count.get(k) === 1).length;
        const missing = tally(keys.filter((k) => !receiver.count.has(k)));
        const twice = tally(keys.filter((k) => (receiver.count.get(k) ?? 0) > 1));
        const edgeFailures = after.non2xx - before.non2xx + after.errors - before.errors;
        const total = rate * seconds;
        // The service kept pace (no backlog of sends), whatever else failed: the ladder goes on while it does.
        const keptUp = tokens.length === total && allSent && arrivedOnce === total && sends.p50 <= 1000;
        const ok =
          tokens.length === total &&
          allSent &&
          drained &&
          arrivedOnce === total &&
          webhooksOnce === keys.length &&
          edgeFailures === 0 &&
          sends.p99 <= P99_LIMIT_MS &&
          edge.p99 <= P99_LIMIT_MS;
        const lines = [
          `${current.name} at ${rate}/s: ${tokens.length} of ${total} sends accepted (${load.non2xx} non-2xx, ${load.errors} errors), p50 ${sends.p50} / p99 ${sends.p99} ms; ` +
            `${arrivedOnce} at the fake once; ${after.notifications - before.notifications} notifications (${after.statuses - before.statuses} statuses, ${replies.length} replies) answered p50 ${edge.p50} / p99 ${edge.p99} ms, ${edgeFailures} not 200; ` +
            `webhooks ${webhooksOnce} of ${keys.length} once${drained ? '' : ' (drain timed out)'}${missing ? `, missing ${missing}` : ''}${twice ? `, twice ${twice}` : ''}: ${ok ? 'ok' : 'FAILED'}`,
          `  per loop: ${costLine(cost, total)}`,
          ...(SHOW_STATEMENTS ? statementLines(statementsBefore, statementsAfter, total) : []),
        ];
        console.log(lines.join('\n'));
        return { rate, ok, keptUp, messages: total, cost, lines };
      };

      const startSide = async (name: Side['name']): Promise<Side> => {
        const port = await freePort();
        const url = `http://127.0.0.1:${port}`;
        const processes: Record<string, NodeProcess> =
          name === 'API'
            ? {
                api: NodeProcess.start(
                  ctx.mainScript,
                  {
                    ...ctx.env,
                    APP_ROLE: 'api',
                    PORT: String(port),
                    PUBLIC_BASE_URL: url,
                    DATABASE_URL: databaseUrl,
                    MIGRATIONS_RUN: 'false',
                  },
                  ctx.workerNodeArgs,
                ),
                worker: spawnWorker(ctx, { DATABASE_URL: databaseUrl }),
              }
            : {
                baseline: NodeProcess.start('dist/bench/baselines/bare-message-loop.js', {
                  PORT: String(port),
                  DATABASE_URL: databaseUrl,
                  JWT_SECRET: ctx.jwtSecret,
                  REDIS_KEY_PREFIX: ctx.env.REDIS_KEY_PREFIX,
                  WHATSAPP_GRAPH_URL: ctx.cloudApi.url,
                  PHONE_NUMBER_ID,
                  CHANNEL_ID: channel.id,
                  WORKSPACE_ID: ctx.workspaceId,
                  APP_SECRET,
                  WEBHOOK_URL: receiver.url,
                }),
              };
        await processes[name === 'API' ? 'api' : 'baseline'].waitForHttp(`${url}/health/live`);
        if (processes.worker) await waitUntil(() => /Worker started/.test(processes.worker.log), 30_000);
        ctx.cloudApi.notify({ webhookUrl: `${url}/v1/whatsapp/webhooks/${channel.id}`, appSecret: APP_SECRET, replyEvery: REPLY_EVERY });
        return { name, url, processes };
      };
      const stopSide = async (current: Side) => {
        for (const p of Object.values(current.processes)) await p.stop();
      };

      // The API: a warm-up that gives every number its contact and conversation, then the ladder.
      side = await startSide('API');
      console.log(`message loop: warm-up, one message to each of ${NUMBERS} numbers`);
      await runStep(side, WARM_UP_RATE, NUMBERS / WARM_UP_RATE);
      const ladder: Step[] = [];
      for (const rate of RATES) {
        const result = await runStep(side, rate, STEP_SECONDS);
        ladder.push(result);
        if (!result.keptUp) break;
      }
      await stopSide(side);
      const best = [...ladder].reverse().find((s) => s.ok);
      // Cost is compared at the highest rate the API kept pace with, where its fixed costs (idle polling) weigh least.
      const compared = [...ladder].reverse().find((s) => s.keptUp) ?? ladder[0];
      side = await startSide('baseline');
      await runStep(side, WARM_UP_RATE, 5);
      const baseline = await runStep(side, compared.rate, STEP_SECONDS);
      await stopSide(side);
      side = undefined;

      const apiCpu = totalCpu(compared.cost) / compared.messages;
      const baselineCpu = totalCpu(baseline.cost) / baseline.messages;
      return {
        name: this.name,
        ratio: baselineCpu / apiCpu,
        targetRatio: 0.67,
        checks: [
          {
            what: `loop rate ${best ? best.rate : `< ${ladder[0].rate}`}/s (every message, status and webhook once, API p99 ≤ ${P99_LIMIT_MS} ms; target 1,000/s); kept pace up to ${compared.rate}/s`,
            ok: (best?.rate ?? 0) >= 1000,
          },
          ...ladder.map((s) => ({ what: s.lines.join(' '), ok: true })),
          {
            what: `at ${compared.rate}/s CPU per loop (every process counted): API side ${apiCpu.toFixed(2)} ms, baseline ${baselineCpu.toFixed(2)} ms; ratio baseline ÷ API (target ≥ 0.67)`,
            ok: true,
          },
          { what: baseline.lines.join(' '), ok: baseline.ok },
          { what: `statement relay CPU ${(counter.process.cpuSeconds() * 1000).toFixed(0)} ms over the run (not counted above)`, ok: true },
        ],
      };
    } finally {
      if (side) for (const p of Object.values(side.processes)) await p.stop();
      await counter.stop();
      clearInterval(watchIntake);
      await intake.end();
      receiver.server.closeAllConnections();
      receiver.server.close();
    }
  },
};

/** Every process counted: the measured processes, PostgreSQL's backends serving them, Redis. */
function totalCpu(cost: Cost): number {
  return Object.values(cost.cpuMs).reduce((a, b) => a + b, 0) + cost.postgresMs + cost.redisMs;
}

function costLine(cost: Cost, loops: number): string {
  const per = (ms: number) => (ms / loops).toFixed(2);
  const processes = Object.entries(cost.cpuMs).map(([name, ms]) => `${name} ${per(ms)} ms`);
  return (
    `${processes.join(', ')}, PostgreSQL ${per(cost.postgresMs)} ms, Redis ${per(cost.redisMs)} ms (shared server): total ${per(totalCpu(cost))} ms CPU; ` +
    `${(cost.statements / loops).toFixed(1)} statements, ${(cost.commits / loops).toFixed(1)} commits`
  );
}

/** Webhook keys counted by kind (`Sent`, `Delivered`, `Read`, `reply`), e.g. `3 Delivered, 1 reply`; empty when none. */
function tally(keys: string[]): string {
  const byKind = new Map<string, number>();
  for (const key of keys) {
    const kind = key.includes('#') ? key.split('#')[1] : 'reply';
    byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
  }
  return [...byKind].map(([kind, n]) => `${n} ${kind}`).join(', ');
}

/** A check that turns true once the receiver's count has not moved for `ms`. */
function quietDetector(count: Map<string, number>, ms: number): () => boolean {
  let last = -1;
  let since = Date.now();
  return () => {
    const total = count.size === 0 ? 0 : [...count.values()].reduce((a, b) => a + b, 0);
    if (total !== last) [last, since] = [total, Date.now()];
    return Date.now() - since >= ms;
  };
}

/** Waits until no webhook has come for 3 s (at most 120 s). */
async function quiet(count: Map<string, number>): Promise<void> {
  const total = () => [...count.values()].reduce((a, b) => a + b, 0);
  const deadline = Date.now() + 120_000;
  for (let last = -1, seen = total(); seen !== last && Date.now() < deadline; last = seen, seen = total()) await sleep(3000);
}
