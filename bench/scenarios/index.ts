import type { BenchContext } from '../context.js';
import { load, NodeProcess, freePort, type LoadResult } from '../harness.js';
import { webhookDelivery } from './webhook-delivery.js';
import { webhookFanOutScenario, webhookThrottleScenario } from './webhook-endpoints.js';
import { createIvrScenario, ivrThroughputScenario, ivrWorkerAloneScenario } from './outbound-ivr.js';
import { sendTemplateScenario, sustainedSendScenario } from './whatsapp.js';
import { inboundEdgeScenario, inboundMediaScenario } from './whatsapp-inbound.js';
import { listConversationsScenario, seedScenario as conversationSeedScenario, timelineScenario } from './conversations.js';
import { listScenario, searchScenario, seedScenario, setPropertyScenario, vcardScenario } from './contacts.js';
import { speechScenario, uploadAudioScenario } from './media.js';

/** One row of the table: the API's figures next to its baseline's, measured in the same run. */
export interface ScenarioResult {
  name: string;
  api?: LoadResult;
  baseline?: LoadResult;
  /** API requests/s ÷ baseline requests/s. */
  ratio?: number;
  targetRatio?: number;
  /** Absolute targets and what was measured for them, e.g. `p95 612 ms ≤ 1000 ms`. */
  checks: Array<{ what: string; ok: boolean }>;
}

export interface Scenario {
  name: string;
  run(ctx: BenchContext): Promise<ScenarioResult>;
}

/** Loads the same request against the API and against a baseline server script started for it. */
export async function compareWithBaseline(
  ctx: BenchContext,
  options: {
    name: string;
    targetRatio: number;
    baselineScript: string;
    path?: string;
    method?: 'GET' | 'POST' | 'PUT';
    headers?: Record<string, string>;
    connections?: number;
    next?: () => { path?: string; body?: string };
  },
): Promise<ScenarioResult> {
  const request = { method: options.method, headers: options.headers, connections: options.connections, next: options.next };
  const api = await load({ url: `${ctx.apiUrl}${options.path ?? '/'}`, ...request });
  const port = await freePort();
  const baselineProcess = NodeProcess.start(options.baselineScript, {
    PORT: String(port),
    DATABASE_URL: ctx.databaseUrl,
    JWT_SECRET: ctx.jwtSecret,
  });
  try {
    await baselineProcess.waitForHttp(`http://127.0.0.1:${port}/health/live`);
    const baseline = await load({ url: `http://127.0.0.1:${port}${options.path ?? '/'}`, ...request });
    return {
      name: options.name,
      api,
      baseline,
      ratio: api.requestsPerSecond / baseline.requestsPerSecond,
      targetRatio: options.targetRatio,
      checks: [
        { what: 'no errors or non-2xx', ok: api.errors === 0 && api.non2xx === 0 && baseline.errors === 0 && baseline.non2xx === 0 },
      ],
    };
  } finally {
    await baselineProcess.stop();
  }
}

export const healthLive: Scenario = {
  name: 'GET /health/live',
  run: (ctx) =>
    compareWithBaseline(ctx, {
      name: 'GET /health/live',
      targetRatio: 0.75,
      baselineScript: 'dist/bench/baselines/bare-health.js',
      path: '/health/live',
    }),
};

export const workspaceUsers: Scenario = {
  name: 'GET /v1/workspaces/users',
  async run(ctx) {
    for (let i = 0; i < 10; i++) {
      await ctx.admin('POST', `/admin/v1/workspaces/${ctx.workspaceId}/users`, {
        email: `user${i}@bench.example`,
        name: `User ${i}`,
        role: i === 0 ? 1 : 2,
      });
    }
    return compareWithBaseline(ctx, {
      name: 'GET /v1/workspaces/users',
      targetRatio: 0.6,
      baselineScript: 'dist/bench/baselines/bare-workspace-users.js',
      path: '/v1/workspaces/users',
      headers: { authorization: `Bearer ${ctx.token}` },
    });
  },
};

/** Every scenario, in the order the table prints them. Later capabilities add theirs here. */
export const SCENARIOS: Scenario[] = [
  healthLive,
  workspaceUsers,
  webhookDelivery,
  webhookFanOutScenario,
  webhookThrottleScenario,
  seedScenario,
  setPropertyScenario,
  searchScenario,
  listScenario,
  vcardScenario,
  conversationSeedScenario,
  listConversationsScenario,
  timelineScenario,
  // The sustained run first: its worker must not inherit the request-path scenario's backlog.
  sustainedSendScenario,
  sendTemplateScenario,
  inboundEdgeScenario,
  inboundMediaScenario,
  uploadAudioScenario,
  speechScenario,
  ivrThroughputScenario,
  ivrWorkerAloneScenario,
  createIvrScenario,
];
