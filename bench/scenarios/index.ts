import type { BenchContext } from '../context.js';
import { load, NodeProcess, freePort, type LoadResult } from '../harness.js';
import { compareCost, COST_RATE_SHARE, type CostComparison } from '../request-cost.js';

/** API and baseline are each measured this many times, interleaved (at least 3 for a median). */
const BENCH_ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
import { webhookDelivery } from './webhook-delivery.js';
import { webhookFanOutScenario, webhookThrottleScenario } from './webhook-endpoints.js';
import { createIvrScenario, ivrThroughputScenario, ivrWorkerAloneScenario } from './outbound-ivr.js';
import { recordedCallsScenario, recordingDownloadScenario } from './call-recording.js';
import { whatsAppCallMediaScenario } from './whatsapp-call-media.js';
import { whatsAppIvrCallsScenario } from './whatsapp-ivr-calls.js';
import { sendTemplateScenario, sustainedSendScenario } from './whatsapp.js';
import { inboundEdgeScenario, inboundMediaScenario } from './whatsapp-inbound.js';
import { listConversationsScenario, seedScenario as conversationSeedScenario, timelineScenario } from './conversations.js';
import { listScenario, searchScenario, seedScenario, setPropertyScenario, vcardScenario } from './contacts.js';
import { speechScenario, uploadAudioScenario } from './media.js';
import { audienceSnapshotScenario, campaignThroughputScenario } from './campaigns.js';
import { soakScenario } from './soak.js';
import { messageLoopScenario } from './message-loop.js';
import { usageScenario } from './whatsapp-usage.js';
import { templateCacheScenario } from './template-cache.js';
import { businessCampaignsScenario } from './business-campaigns.js';

/** One row of the table: the API's figures next to its baseline's, measured in the same run. */
export interface ScenarioResult {
  name: string;
  api?: LoadResult;
  baseline?: LoadResult;
  /** API requests/s ÷ baseline requests/s: the median over the rounds. */
  ratio?: number;
  /** The lowest and highest ratio of the rounds. */
  ratioSpread?: [number, number];
  targetRatio?: number;
  /** The saturated ratio is shown beside the cost, not judged (request paths are judged by cost). */
  ratioSecondary?: boolean;
  /** Request paths: CPU per request of API and baseline at the same fixed rate below saturation. */
  cost?: CostComparison;
  /** The lowest cost ratio (baseline ÷ API) that is not a regression (bench/README.md, "Floors"). */
  costFloor?: number;
  /** Absolute targets and what was measured for them, e.g. `p95 612 ms ≤ 1000 ms`. */
  checks: Array<{ what: string; ok: boolean }>;
}

export interface Scenario {
  name: string;
  /** Left out of a run without a filter (too long for every run): runs only when the filter matches its name. */
  onlyWhenNamed?: boolean;
  /** Settings the API process needs for this scenario (the API is started once, before any scenario runs). */
  apiEnv?: Record<string, string>;
  run(ctx: BenchContext): Promise<ScenarioResult>;
}

/** Loads the same request against the API and against a baseline server script started for it. */
export async function compareWithBaseline(
  ctx: BenchContext,
  options: {
    name: string;
    targetRatio: number;
    /** The floor of the cost ratio (see ScenarioResult.costFloor). */
    costFloor?: number;
    baselineScript: string;
    path?: string;
    method?: 'GET' | 'POST' | 'PUT';
    headers?: Record<string, string>;
    connections?: number;
    next?: () => { path?: string; body?: string };
  },
): Promise<ScenarioResult> {
  const request = { method: options.method, headers: options.headers, connections: options.connections, next: options.next };
  const port = await freePort();
  const baselineProcess = NodeProcess.start(options.baselineScript, {
    PORT: String(port),
    DATABASE_URL: ctx.databaseUrl,
    JWT_SECRET: ctx.jwtSecret,
    REDIS_KEY_PREFIX: ctx.env.REDIS_KEY_PREFIX,
  });
  try {
    await baselineProcess.waitForHttp(`http://127.0.0.1:${port}/health/live`);
    const loadApi = () => load({ url: `${ctx.apiUrl}${options.path ?? '/'}`, ...request });
    const loadBaseline = () => load({ url: `http://127.0.0.1:${port}${options.path ?? '/'}`, ...request });
    // Alternating rounds, each pair in the opposite order of the last, so that a burst of noise on
    // this shared machine lands on both sides rather than on one; the verdict takes the median.
    const rounds: Array<{ api: LoadResult; baseline: LoadResult; ratio: number }> = [];
    for (let i = 0; i < BENCH_ROUNDS; i++) {
      const [first, second] = i % 2 === 0 ? [loadApi, loadBaseline] : [loadBaseline, loadApi];
      const a = await first();
      const b = await second();
      const [api, baseline] = i % 2 === 0 ? [a, b] : [b, a];
      rounds.push({ api, baseline, ratio: api.requestsPerSecond / baseline.requestsPerSecond });
    }
    const byRatio = [...rounds].sort((x, y) => x.ratio - y.ratio);
    const median = byRatio[Math.floor(byRatio.length / 2)];
    const clean = rounds.every((r) => r.api.errors === 0 && r.api.non2xx === 0 && r.baseline.errors === 0 && r.baseline.non2xx === 0);
    // Then cost: both at the same fixed rate, a share of the baseline's saturated rate just measured (the probe).
    const cost = await compareCost(
      ctx,
      {
        api: { url: `${ctx.apiUrl}${options.path ?? '/'}`, pid: ctx.api.child.pid! },
        baseline: { url: `http://127.0.0.1:${port}${options.path ?? '/'}`, pid: baselineProcess.child.pid! },
      },
      request,
      Math.max(1, Math.round(median.baseline.requestsPerSecond * COST_RATE_SHARE)),
      BENCH_ROUNDS,
    );
    return {
      name: options.name,
      api: median.api,
      baseline: median.baseline,
      ratio: median.ratio,
      ratioSpread: [byRatio[0].ratio, byRatio[byRatio.length - 1].ratio],
      targetRatio: options.targetRatio,
      ratioSecondary: true,
      cost,
      costFloor: options.costFloor,
      checks: [
        { what: `no errors or non-2xx in ${rounds.length} rounds each`, ok: clean },
        { what: `no errors or non-2xx at the fixed rate in ${rounds.length} rounds each`, ok: cost.clean },
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
      targetRatio: 0.8,
      costFloor: 0.22,
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
      targetRatio: 0.7,
      costFloor: 0.25,
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
  audienceSnapshotScenario,
  campaignThroughputScenario,
  businessCampaignsScenario,
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
  recordedCallsScenario,
  recordingDownloadScenario,
  whatsAppCallMediaScenario,
  whatsAppIvrCallsScenario,
  ivrWorkerAloneScenario,
  createIvrScenario,
  usageScenario,
  templateCacheScenario,
  soakScenario,
  messageLoopScenario,
];
