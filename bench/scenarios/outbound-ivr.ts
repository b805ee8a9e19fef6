import { createServer } from 'node:http';
import autocannon from 'autocannon';
import { startWorker, type BenchContext } from '../context.js';
import { freePort } from '../harness.js';
import { compareWithBaseline, type Scenario, type ScenarioResult } from './index.js';

const CALL_RATE = Number(process.env.BENCH_IVR_RATE ?? 210);
const CALL_SECONDS = Number(process.env.BENCH_IVR_SECONDS ?? 20);
/** The target counts outcome webhooks; BENCH_IVR_CALL_WEBHOOK=1 also sends each call's Call Webhook. */
const WITH_CALL_WEBHOOK = process.env.BENCH_IVR_CALL_WEBHOOK === '1';

/** A number no call has dialled yet (each becomes a new contact). */
const newDestination = () => `96650${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;

export const ivrBody = (channelId: string, webhookUrl: string, externalId: string, destinationNumber = newDestination()) =>
  JSON.stringify({
    channelId,
    externalId,
    destinationNumber,
    audioFileUrl: 'https://media.example.com/question.wav',
    options: [
      { digit: '1', description: 'Confirm' },
      { digit: '2', description: 'Cancel' },
    ],
    webhookUrl,
  });

/**
 * A voice channel whose sandbox answers at once and presses 1, its call limits raised by the
 * operator: a channel's default is 1 call/s and 10 at once (the governor's), which would measure
 * the governor, not the worker.
 */
export async function sandboxVoiceChannel(ctx: BenchContext, name: string, postCallWebhookUrl?: string): Promise<string> {
  const channel = await ctx.admin('POST', `/admin/v1/workspaces/${ctx.workspaceId}/channels`, {
    name,
    type: 1,
    phoneNumber: '+14155557200',
    postCallWebhookUrl,
    voice: { provider: 'sandbox', fromNumber: '+14155557200', sandbox: { ringMs: 0, talkMs: 0, pressDigits: ['1'] } },
  });
  await ctx.admin('PUT', `/admin/v1/channels/${channel.id}/limits`, { callsPerSecond: 1000, concurrentCalls: 1000 });
  return channel.id as string;
}

export const createIvrScenario: Scenario = {
  name: 'POST Create Outbound IVR (request path only)',
  async run(ctx) {
    const channelId = await sandboxVoiceChannel(ctx, 'Bench IVR');
    let n = 0;
    return compareWithBaseline(ctx, {
      name: this.name,
      targetRatio: 0.7,
      costFloor: 0.53,
      baselineScript: 'dist/bench/baselines/bare-create-ivr.js',
      path: '/v1/outbound-ivr',
      method: 'POST',
      headers: { authorization: `Bearer ${ctx.token}`, 'content-type': 'application/json' },
      next: () => ({ body: ivrBody(channelId, 'https://hooks.example.com/ivr', `bench-${process.pid}-${++n}-${Math.random()}`) }),
    });
  },
};

/** Receives outcome webhooks (by externalId, with their arrival time) and counts Call Webhooks. */
export async function startOutcomeReceiver() {
  const outcomes = new Map<string, number>();
  const counts = { callWebhooks: 0 };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.url === '/call') counts.callWebhooks++;
      else outcomes.set((JSON.parse(Buffer.concat(chunks).toString()) as { externalId: string }).externalId, Date.now());
      res.end('ok');
    });
  });
  server.keepAliveTimeout = 60_000;
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { outcomes, counts, url: (path: string) => `http://127.0.0.1:${port}${path}`, close: () => server.close() };
}

/** The worker of the IVR scenarios, with a larger pool (see the README's note on IVR throughput). */
export const IVR_WORKER_ENV = { DATABASE_POOL_SIZE: '50' };

/** Requests calls with autocannon: at `rate` for `seconds`, or `amount` of them as fast as the API takes them. */
async function requestCalls(
  ctx: BenchContext,
  channelId: string,
  webhookUrl: string,
  load: { rate: number; seconds: number } | { amount: number },
) {
  const requestedAt = new Map<string, number>();
  let n = 0;
  const result = await autocannon({
    url: `${ctx.apiUrl}/v1/outbound-ivr`,
    method: 'POST',
    headers: { authorization: `Bearer ${ctx.token}`, 'content-type': 'application/json' },
    connections: 32,
    ...('rate' in load ? { overallRate: load.rate, duration: load.seconds } : { amount: load.amount }),
    requests: [
      {
        setupRequest: (req: autocannon.Request) => {
          const externalId = `call-${process.pid}-${channelId}-${++n}`;
          requestedAt.set(externalId, Date.now());
          return { ...req, body: ivrBody(channelId, webhookUrl, externalId) };
        },
      },
    ],
  });
  return { accepted: result['2xx'], non2xx: result.non2xx, requestedAt };
}

async function waitForOutcomes(
  receiver: Awaited<ReturnType<typeof startOutcomeReceiver>>,
  accepted: number,
  callWebhooks: number,
): Promise<void> {
  const waitUntil = Date.now() + 60_000;
  while ((receiver.outcomes.size < accepted || receiver.counts.callWebhooks < callWebhooks) && Date.now() < waitUntil)
    await new Promise((resolve) => setTimeout(resolve, 100));
}

/**
 * Calls requested at 210/s (BENCH_IVR_RATE) for 20 s against a sandbox channel at zero durations,
 * played out by one worker process while the API takes the requests on the same machine; every
 * call's outcome webhook (and with BENCH_IVR_CALL_WEBHOOK=1 its Call Webhook) goes to a receiver
 * here. Completed calls/s = outcome webhooks received ÷ time from the first request to the last one.
 */
export const ivrThroughputScenario: Scenario = {
  name: `Outbound IVR: ${CALL_RATE} calls/s for ${CALL_SECONDS} s, sandbox at zero durations, one worker${WITH_CALL_WEBHOOK ? ', with Call Webhooks' : ''}`,
  async run(ctx): Promise<ScenarioResult> {
    const receiver = await startOutcomeReceiver();
    const channelId = await sandboxVoiceChannel(ctx, 'Bench IVR calls', WITH_CALL_WEBHOOK ? receiver.url('/call') : undefined);
    const worker = await startWorker(ctx, IVR_WORKER_ENV);
    try {
      const started = Date.now();
      const calls = await requestCalls(ctx, channelId, receiver.url('/outcome'), { rate: CALL_RATE, seconds: CALL_SECONDS });
      const expectedCallWebhooks = WITH_CALL_WEBHOOK ? calls.accepted : 0;
      await waitForOutcomes(receiver, calls.accepted, expectedCallWebhooks);
      const rate = receiver.outcomes.size / ((Math.max(...receiver.outcomes.values()) - started) / 1000);
      const latencies = [...receiver.outcomes].map(([id, at]) => at - (calls.requestedAt.get(id) ?? at)).sort((a, b) => a - b);
      const p95 = latencies[Math.floor(latencies.length * 0.95)] ?? Infinity;
      const p50 = latencies[Math.floor(latencies.length * 0.5)] ?? Infinity;
      return {
        name: this.name,
        checks: [
          { what: `${calls.accepted} calls accepted, ${calls.non2xx} non-2xx`, ok: calls.non2xx === 0 && calls.accepted > 0 },
          {
            what: `${receiver.outcomes.size} outcome webhooks, ${receiver.counts.callWebhooks} Call Webhooks of ${calls.accepted}`,
            ok: receiver.outcomes.size >= calls.accepted && receiver.counts.callWebhooks >= expectedCallWebhooks,
          },
          { what: `completed ${rate.toFixed(0)} calls/s ≥ 200`, ok: rate >= 200 },
          { what: `request → outcome webhook p50 ${p50} ms, p95 ${p95} ms`, ok: true },
          { what: `worker peak RSS ${worker.peakRssMb()} MB`, ok: true },
        ],
      };
    } finally {
      await worker.stop();
      receiver.close();
      if (process.env.BENCH_VERBOSE) console.log(worker.log.slice(-3000));
    }
  },
};

const BACKLOG = Number(process.env.BENCH_IVR_BACKLOG ?? 3000);

/**
 * The worker alone: 3,000 calls (BENCH_IVR_BACKLOG) requested first, then one worker started;
 * completed calls/s = calls ÷ time from the worker's start to the last outcome webhook.
 */
export const ivrWorkerAloneScenario: Scenario = {
  name: `Outbound IVR: a backlog of ${BACKLOG} calls played out by one worker alone`,
  async run(ctx): Promise<ScenarioResult> {
    const receiver = await startOutcomeReceiver();
    const channelId = await sandboxVoiceChannel(ctx, 'Bench IVR backlog');
    const calls = await requestCalls(ctx, channelId, receiver.url('/outcome'), { amount: BACKLOG });
    const worker = await startWorker(ctx, IVR_WORKER_ENV);
    try {
      const started = Date.now();
      await waitForOutcomes(receiver, calls.accepted, 0);
      const seconds = (Math.max(...receiver.outcomes.values()) - started) / 1000;
      const rate = receiver.outcomes.size / seconds;
      return {
        name: this.name,
        checks: [
          { what: `${calls.accepted} calls accepted, ${calls.non2xx} non-2xx`, ok: calls.non2xx === 0 && calls.accepted > 0 },
          {
            what: `${receiver.outcomes.size} of ${calls.accepted} outcome webhooks in ${seconds.toFixed(1)} s`,
            ok: receiver.outcomes.size >= calls.accepted,
          },
          { what: `completed ${rate.toFixed(0)} calls/s ≥ 200`, ok: rate >= 200 },
          { what: `worker peak RSS ${worker.peakRssMb()} MB`, ok: true },
        ],
      };
    } finally {
      await worker.stop();
      receiver.close();
    }
  },
};
