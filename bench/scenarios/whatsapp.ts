import { Client } from 'pg';
import { percentiles, steadyLoad } from '../steady-load.js';
import { startWorker, type BenchContext } from '../context.js';
import { compareWithBaseline, type Scenario, type ScenarioResult } from './index.js';

export const TEMPLATE = {
  name: 'bench_hello',
  language: 'en',
  category: 'UTILITY',
  status: 'APPROVED',
  components: [{ type: 'BODY', text: 'Hi {{1}}' }],
};
const SUSTAINED_SECONDS = Number(process.env.BENCH_SUSTAINED_SECONDS ?? 60);
const SUSTAINED_RATE = 200;
const WARM_UP_SECONDS = 10;

const numberPool = Array.from({ length: 500 }, (_, i) => `1917555${String(i).padStart(4, '0')}`);
const pick = <T>(items: T[]) => items[Math.floor(Math.random() * items.length)];
export const sendBody = (channelId: string, token: string, toNumber = pick(numberPool)) =>
  JSON.stringify({
    channelId,
    templateName: TEMPLATE.name,
    language: TEMPLATE.language,
    toNumber,
    parameters: [{ type: 'Body', values: [{ type: 'text', text: token }] }],
  });

export interface BenchTemplate {
  name: string;
  language: string;
  category: string;
  status: string;
  components: unknown[];
}

/** Stores a template on a cloud-api channel as a sync from the WhatsApp Business Account would have (the bench's fake lists none). */
export async function storeSyncedTemplate(ctx: BenchContext, channelId: string, template: BenchTemplate): Promise<void> {
  const client = new Client({ connectionString: ctx.databaseUrl });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO whatsapp_templates (id, workspace_id, channel_id, name, language, category, status, components) VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7)`,
      [
        ctx.workspaceId,
        channelId,
        template.name,
        template.language,
        template.category,
        template.status,
        JSON.stringify(template.components),
      ],
    );
  } finally {
    await client.end();
  }
}

export const sendTemplateScenario: Scenario = {
  name: 'WhatsApp: POST Send Template (sandbox channel, request path only)',
  async run(ctx) {
    const channel = await ctx.admin('POST', `/admin/v1/workspaces/${ctx.workspaceId}/channels`, {
      name: 'Bench WA',
      type: 2,
      phoneNumber: '+14155557100',
      whatsApp: { provider: 'sandbox' },
    });
    await ctx.admin('POST', `/admin/v1/channels/${channel.id}/templates`, TEMPLATE);
    let n = 0;
    return compareWithBaseline(ctx, {
      name: this.name,
      targetRatio: 0.7,
      costFloor: 0.6,
      baselineScript: 'dist/bench/baselines/bare-send-template.js',
      path: '/v1/whatsapp/service-account/sendTemplate',
      method: 'POST',
      headers: { authorization: `Bearer ${ctx.token}`, 'content-type': 'application/json' },
      next: () => ({ body: sendBody(channel.id, `t${++n}`) }),
    });
  },
};

/** request → provider by 5 s window of the run (BENCH_VERBOSE). */
function printByWindow(tokens: string[], sentAt: Map<string, number>, arrival: (token: string) => number): void {
  const start = Math.min(...sentAt.values());
  const windows = new Map<number, number[]>();
  for (const token of tokens) {
    const window = Math.floor((sentAt.get(token)! - start) / 5000);
    windows.set(window, [...(windows.get(window) ?? []), arrival(token) - sentAt.get(token)!]);
  }
  for (const [window, latencies] of [...windows].sort((a, b) => a[0] - b[0])) {
    const { p50, p95 } = percentiles(latencies);
    console.log(`  ${window * 5}-${window * 5 + 5} s: request → provider p50 ${p50} ms, p95 ${p95} ms`);
  }
}

/**
 * 200 sends/s for 60 s through a cloud-api channel, one worker process, the fake Cloud API on
 * 127.0.0.1. Every message carries a unique token, so the fake can tell a lost or doubled send.
 * The target is timed from acceptance (the 200 reaching the load generator) to the provider
 * receiving the message; the time from the request leaving the load generator is shown too.
 */
export const sustainedSendScenario: Scenario = {
  name: `WhatsApp: ${SUSTAINED_RATE} sends/s for ${SUSTAINED_SECONDS} s to the Cloud API`,
  async run(ctx): Promise<ScenarioResult> {
    const channel = await ctx.admin('POST', `/admin/v1/workspaces/${ctx.workspaceId}/channels`, {
      name: 'Bench Cloud',
      type: 2,
      phoneNumber: '+14155557101',
      whatsApp: {
        provider: 'cloud-api',
        phoneNumberId: '900',
        wabaId: '901',
        accessToken: 'bench-token',
        appSecret: 's',
        verifyToken: 'v',
      },
    });
    await storeSyncedTemplate(ctx, channel.id, TEMPLATE);
    const worker = await startWorker(ctx);
    try {
      const run = (seconds: number, prefix: string) =>
        steadyLoad({
          url: `${ctx.apiUrl}/v1/whatsapp/service-account/sendTemplate`,
          headers: { authorization: `Bearer ${ctx.token}`, 'content-type': 'application/json' },
          body: (token) => sendBody(channel.id, token),
          rate: SUSTAINED_RATE,
          seconds,
          prefix,
        });
      const allArrived = async (tokens: string[]) => {
        const waitUntil = Date.now() + 30_000;
        while (tokens.some((token) => !ctx.cloudApi.arrivals.has(token)) && Date.now() < waitUntil) {
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      };
      // Warm-up, as the other load scenarios have: a cold API and worker, and the first message to each of the 500 numbers creating its contact and conversation.
      const warmedUp = [...(await run(WARM_UP_SECONDS, 'w')).acceptedAt.keys()];
      await allArrived(warmedUp);
      const load = await run(SUSTAINED_SECONDS, 's');
      const accepted = [...load.acceptedAt.keys()];
      await allArrived(accepted);
      const arrived = accepted.filter((token) => ctx.cloudApi.arrivals.has(token));
      const lost = [...warmedUp, ...accepted].filter((token) => !ctx.cloudApi.arrivals.has(token)).length;
      const doubled = [...ctx.cloudApi.arrivals.values()].filter((times) => times.length > 1).length;
      const fromAcceptance = percentiles(arrived.map((token) => ctx.cloudApi.arrivals.get(token)![0] - load.acceptedAt.get(token)!));
      const fromRequest = percentiles(arrived.map((token) => ctx.cloudApi.arrivals.get(token)![0] - load.sentAt.get(token)!));
      const rate = accepted.length / SUSTAINED_SECONDS;
      if (process.env.BENCH_VERBOSE) printByWindow(arrived, load.sentAt, (token) => ctx.cloudApi.arrivals.get(token)![0]);
      return {
        name: this.name,
        checks: [
          {
            what: `${accepted.length} of ${load.sentAt.size} accepted (${rate.toFixed(0)}/s), ${load.non2xx} non-2xx, ${load.errors} errors`,
            ok: accepted.length === load.sentAt.size && rate >= SUSTAINED_RATE * 0.95,
          },
          {
            what: `acceptance → provider p50 ${fromAcceptance.p50} ms, p95 ${fromAcceptance.p95} ms ≤ 250 ms`,
            ok: fromAcceptance.p95 <= 250,
          },
          { what: `request → provider p50 ${fromRequest.p50} ms, p95 ${fromRequest.p95} ms`, ok: true },
          {
            what: `arrived ${arrived.length} of ${accepted.length} accepted; warm-up included: lost ${lost}, sent twice ${doubled}`,
            ok: lost === 0 && doubled === 0,
          },
          { what: `worker peak RSS ${worker.peakRssMb()} MB`, ok: true },
        ],
      };
    } finally {
      await worker.stop();
      if (process.env.BENCH_VERBOSE) console.log(worker.log.slice(-3000));
    }
  },
};
