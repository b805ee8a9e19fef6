import type { BenchContext } from './context.js';
import { CostMeter } from './cost-meter.js';
import { load, type LoadOptions } from './harness.js';

/** Below saturation: the fixed rate is this share of the baseline's saturated rate. */
export const COST_RATE_SHARE = 0.6;
const COST_SECONDS = Number(process.env.BENCH_COST_SECONDS ?? 8);

/** One side's cost at the fixed rate: CPU µs per request of its process and of the PostgreSQL backends serving it. */
export interface RequestCost {
  processUs: number;
  postgresUs: number;
  totalUs: number;
  p99Ms: number;
  requestsPerSecond: number;
}

/** API and baseline at the same fixed rate, in interleaved rounds: the ratio is baseline ÷ API of CPU per request. */
export interface CostComparison {
  rate: number;
  api: RequestCost;
  baseline: RequestCost;
  /** The median round's baseline ÷ API total CPU per request. */
  ratio: number;
  ratioSpread: [number, number];
  clean: boolean;
}

/**
 * Loads API and baseline in turn at `rate` (each pair in the opposite order of the one before) and
 * measures what each request cost from /proc: the measured process, and the database's client
 * backends (only the side under load is busy; the other's pool idles). The rate is below both
 * sides' capacity, so the figures are cost, not how the load generator and the two sides shared the cores.
 */
export async function compareCost(
  ctx: BenchContext,
  sides: { api: { url: string; pid: number }; baseline: { url: string; pid: number } },
  request: Omit<LoadOptions, 'url'>,
  rate: number,
  rounds: number,
): Promise<CostComparison> {
  const measure = async (side: { url: string; pid: number }): Promise<RequestCost & { errors: number }> => {
    let meter: CostMeter | undefined;
    const result = await load({
      ...request,
      url: side.url,
      rate,
      durationSeconds: COST_SECONDS,
      beforeMeasured: async () => {
        meter = await CostMeter.start({
          databaseUrl: ctx.databaseUrl,
          redisUrl: ctx.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
          processes: { side: side.pid },
        });
      },
    });
    const cost = await meter!.stop();
    const per = (ms: number) => (ms * 1000) / Math.max(1, result.requests);
    return {
      processUs: per(cost.cpuMs.side),
      postgresUs: per(cost.postgresMs),
      totalUs: per(cost.cpuMs.side + cost.postgresMs),
      p99Ms: result.p99Ms,
      requestsPerSecond: result.requestsPerSecond,
      errors: result.errors + result.non2xx,
    };
  };
  const all: Array<{ api: RequestCost & { errors: number }; baseline: RequestCost & { errors: number }; ratio: number }> = [];
  for (let i = 0; i < rounds; i++) {
    const order = i % 2 === 0 ? (['api', 'baseline'] as const) : (['baseline', 'api'] as const);
    const measured: Partial<Record<'api' | 'baseline', RequestCost & { errors: number }>> = {};
    for (const name of order) measured[name] = await measure(sides[name]);
    all.push({ api: measured.api!, baseline: measured.baseline!, ratio: measured.baseline!.totalUs / measured.api!.totalUs });
  }
  const byRatio = [...all].sort((a, b) => a.ratio - b.ratio);
  const median = byRatio[Math.floor(byRatio.length / 2)];
  return {
    rate,
    api: median.api,
    baseline: median.baseline,
    ratio: median.ratio,
    ratioSpread: [byRatio[0].ratio, byRatio[byRatio.length - 1].ratio],
    clean: all.every((r) => r.api.errors === 0 && r.baseline.errors === 0),
  };
}
