import { createServer } from 'node:http';
import autocannon from 'autocannon';
import type { BenchContext } from '../context.js';
import { freePort, NodeProcess } from '../harness.js';
import { compareWithBaseline, type Scenario, type ScenarioResult } from './index.js';

const CALL_RATE = Number(process.env.BENCH_IVR_RATE ?? 210);
const CALL_SECONDS = Number(process.env.BENCH_IVR_SECONDS ?? 20);
/** The target counts outcome webhooks; BENCH_IVR_CALL_WEBHOOK=1 also sends each call's Call Webhook. */
const WITH_CALL_WEBHOOK = process.env.BENCH_IVR_CALL_WEBHOOK === '1';

const ivrBody = (channelId: string, webhookUrl: string, externalId: string) =>
  JSON.stringify({
    channelId,
    externalId,
    destinationNumber: `96650${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`,
    audioFileUrl: 'https://media.example.com/question.wav',
    options: [
      { digit: '1', description: 'Confirm' },
      { digit: '2', description: 'Cancel' },
    ],
    webhookUrl,
  });

/** A voice channel whose sandbox answers at once and presses 1. The API alone: no worker runs, the calls wait. */
async function sandboxVoiceChannel(ctx: BenchContext, name: string, postCallWebhookUrl?: string): Promise<string> {
  const channel = await ctx.admin('POST', `/admin/v1/workspaces/${ctx.workspaceId}/channels`, {
    name,
    type: 1,
    phoneNumber: '+14155557200',
    postCallWebhookUrl,
    voice: { provider: 'sandbox', fromNumber: '+14155557200', sandbox: { ringMs: 0, talkMs: 0, pressDigits: ['1'] } },
  });
  return channel.id as string;
}

export const createIvrScenario: Scenario = {
  name: 'POST Create Outbound IVR (request path only)',
  async run(ctx) {
    const channelId = await sandboxVoiceChannel(ctx, 'Bench IVR');
    let n = 0;
    return compareWithBaseline(ctx, {
      name: this.name,
      targetRatio: 0.5,
      baselineScript: 'dist/bench/baselines/bare-create-ivr.js',
      path: '/v1/outbound-ivr',
      method: 'POST',
      headers: { authorization: `Bearer ${ctx.token}`, 'content-type': 'application/json' },
      next: () => ({ body: ivrBody(channelId, 'https://hooks.example.com/ivr', `bench-${process.pid}-${++n}-${Math.random()}`) }),
    });
  },
};

/**
 * Calls requested at 210/s (BENCH_IVR_RATE) for 20 s against sandbox channels at zero durations, played out by one
 * worker process; every call's outcome webhook (and with BENCH_IVR_CALL_WEBHOOK=1 its Call
 * Webhook) goes to a receiver here.
 * Measures completed calls/s (all outcome webhooks received ÷ the time from the first request to
 * the last webhook) and the request → outcome webhook latency.
 */
export const ivrThroughputScenario: Scenario = {
  name: `Outbound IVR: ${CALL_RATE} calls/s for ${CALL_SECONDS} s, sandbox at zero durations, one worker${WITH_CALL_WEBHOOK ? ', with Call Webhooks' : ''}`,
  async run(ctx): Promise<ScenarioResult> {
    const outcomes = new Map<string, number>();
    let callWebhooks = 0;
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        if (req.url === '/call') callWebhooks++;
        else outcomes.set((JSON.parse(Buffer.concat(chunks).toString()) as { externalId: string }).externalId, Date.now());
        res.end('ok');
      });
    });
    receiver.keepAliveTimeout = 60_000;
    const port = await freePort();
    await new Promise<void>((resolve) => receiver.listen(port, '127.0.0.1', resolve));
    const channelId = await sandboxVoiceChannel(ctx, 'Bench IVR calls', WITH_CALL_WEBHOOK ? `http://127.0.0.1:${port}/call` : undefined);
    const worker = NodeProcess.start(
      'dist/src/main.js',
      { ...ctx.env, APP_ROLE: 'worker', MIGRATIONS_RUN: 'false', LOG_LEVEL: 'info', DATABASE_POOL_SIZE: '50' },
      ctx.nodeArgs,
    );
    try {
      const deadline = Date.now() + 30_000;
      while (!/Worker started/.test(worker.log) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      const requestedAt = new Map<string, number>();
      let n = 0;
      const started = Date.now();
      const result = await autocannon({
        url: `${ctx.apiUrl}/v1/outbound-ivr`,
        method: 'POST',
        headers: { authorization: `Bearer ${ctx.token}`, 'content-type': 'application/json' },
        connections: 32,
        overallRate: CALL_RATE,
        duration: CALL_SECONDS,
        requests: [
          {
            setupRequest: (req: autocannon.Request) => {
              const externalId = `call-${process.pid}-${++n}`;
              requestedAt.set(externalId, Date.now());
              return { ...req, body: ivrBody(channelId, `http://127.0.0.1:${port}/outcome`, externalId) };
            },
          },
        ],
      });
      const accepted = result['2xx'];
      const waitUntil = Date.now() + 60_000;
      const expectedCallWebhooks = WITH_CALL_WEBHOOK ? accepted : 0;
      while ((outcomes.size < accepted || callWebhooks < expectedCallWebhooks) && Date.now() < waitUntil)
        await new Promise((resolve) => setTimeout(resolve, 100));
      const last = Math.max(...outcomes.values());
      const rate = outcomes.size / ((last - started) / 1000);
      const latencies = [...outcomes].map(([id, at]) => at - (requestedAt.get(id) ?? at)).sort((a, b) => a - b);
      const p95 = latencies[Math.floor(latencies.length * 0.95)] ?? Infinity;
      const p50 = latencies[Math.floor(latencies.length * 0.5)] ?? Infinity;
      return {
        name: this.name,
        checks: [
          { what: `${accepted} calls accepted, ${result.non2xx} non-2xx`, ok: result.non2xx === 0 && accepted > 0 },
          {
            what: `${outcomes.size} outcome webhooks, ${callWebhooks} Call Webhooks of ${accepted}`,
            ok: outcomes.size >= accepted && callWebhooks >= expectedCallWebhooks,
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
