import autocannon from 'autocannon';
import { Client } from 'pg';
import { NodeProcess } from '../harness.js';
import { compareWithBaseline, type Scenario, type ScenarioResult } from './index.js';

const TEMPLATE = {
  name: 'bench_hello',
  language: 'en',
  category: 'UTILITY',
  status: 'APPROVED',
  components: [{ type: 'BODY', text: 'Hi {{1}}' }],
};
const SUSTAINED_SECONDS = Number(process.env.BENCH_SUSTAINED_SECONDS ?? 60);
const SUSTAINED_RATE = 200;

const numberPool = Array.from({ length: 500 }, (_, i) => `1917555${String(i).padStart(4, '0')}`);
const pick = <T>(items: T[]) => items[Math.floor(Math.random() * items.length)];
const sendBody = (channelId: string, token: string, toNumber = pick(numberPool)) =>
  JSON.stringify({
    channelId,
    templateName: TEMPLATE.name,
    language: TEMPLATE.language,
    toNumber,
    parameters: [{ type: 'Body', values: [{ type: 'text', text: token }] }],
  });

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
      targetRatio: 0.5,
      baselineScript: 'dist/bench/baselines/bare-send-template.js',
      path: '/v1/whatsapp/service-account/sendTemplate',
      method: 'POST',
      headers: { authorization: `Bearer ${ctx.token}`, 'content-type': 'application/json' },
      next: () => ({ body: sendBody(channel.id, `t${++n}`) }),
    });
  },
};

/**
 * 200 sends/s for 60 s through a cloud-api channel, one worker process, the fake Cloud API on
 * 127.0.0.1. Every message carries a unique token, so the fake can tell a lost or doubled send,
 * and the time from the request leaving the load generator to the provider receiving it (an
 * upper bound of acceptance → provider).
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
    const client = new Client({ connectionString: ctx.databaseUrl });
    await client.connect();
    // The template as a sync from the WhatsApp Business Account would have stored it.
    await client.query(
      `INSERT INTO whatsapp_templates (id, workspace_id, channel_id, name, language, category, status, components) VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7)`,
      [
        ctx.workspaceId,
        channel.id,
        TEMPLATE.name,
        TEMPLATE.language,
        TEMPLATE.category,
        TEMPLATE.status,
        JSON.stringify(TEMPLATE.components),
      ],
    );
    await client.end();
    const worker = NodeProcess.start(
      'dist/src/main.js',
      { ...ctx.env, APP_ROLE: 'worker', MIGRATIONS_RUN: 'false', LOG_LEVEL: 'info' },
      ctx.nodeArgs,
    );
    try {
      const deadline = Date.now() + 30_000;
      while (!/Worker started/.test(worker.log) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
      const sentAt = new Map<string, number>();
      let n = 0;
      const result = await autocannon({
        url: `${ctx.apiUrl}/v1/whatsapp/service-account/sendTemplate`,
        method: 'POST',
        headers: { authorization: `Bearer ${ctx.token}`, 'content-type': 'application/json' },
        connections: 64,
        overallRate: SUSTAINED_RATE,
        duration: SUSTAINED_SECONDS,
        requests: [
          {
            setupRequest: (req: autocannon.Request) => {
              const token = `s${++n}`;
              sentAt.set(token, performance.timeOrigin + performance.now());
              return { ...req, body: sendBody(channel.id, token) };
            },
          },
        ],
      });
      const accepted = result['2xx'];
      const waitUntil = Date.now() + 30_000;
      while (ctx.cloudApi.arrivals.size < accepted && Date.now() < waitUntil) await new Promise((resolve) => setTimeout(resolve, 100));
      const arrived = [...sentAt.keys()].filter((token) => ctx.cloudApi.arrivals.has(token));
      const doubled = arrived.filter((token) => ctx.cloudApi.arrivals.get(token)!.length > 1).length;
      const latencies = arrived.map((token) => ctx.cloudApi.arrivals.get(token)![0] - sentAt.get(token)!).sort((a, b) => a - b);
      const p95 = latencies[Math.floor(latencies.length * 0.95)] ?? Infinity;
      const p50 = latencies[Math.floor(latencies.length * 0.5)] ?? Infinity;
      const rate = accepted / SUSTAINED_SECONDS;
      return {
        name: this.name,
        checks: [
          {
            what: `${accepted} accepted (${rate.toFixed(0)}/s), ${result.non2xx} non-2xx`,
            ok: result.non2xx === 0 && rate >= SUSTAINED_RATE * 0.95,
          },
          { what: `request → provider p50 ${Math.round(p50)} ms, p95 ${Math.round(p95)} ms ≤ 250 ms`, ok: p95 <= 250 },
          // Requests still in flight when the run ends reach the provider without autocannon counting them: arrived ≥ accepted.
          {
            what: `arrived ${arrived.length} of ${accepted} accepted (lost ${Math.max(0, accepted - arrived.length)}), sent twice ${doubled}`,
            ok: arrived.length >= accepted && doubled === 0,
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
