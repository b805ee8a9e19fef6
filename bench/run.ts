// `npm run bench [filter]`: starts the production build against a scratch database, runs each
// scenario against the API and its baseline in the same run, prints the table and writes
// bench/results/<time>.json. Exits 1 when a target is missed.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dropDatabase } from '../src/database/ensure-database.js';
import { deleteRedisKeys } from '../test/support/redis-keys.js';
import { startContext } from './context.js';
import { SCENARIOS, type ScenarioResult } from './scenarios/index.js';

const API_RSS_LIMIT_MB = 250;

function row(cells: Array<string | number>): string {
  return `| ${cells.join(' | ')} |`;
}

async function main(): Promise<void> {
  const filter = process.argv[2];
  // `a|b`: the scenarios whose name contains a or b.
  const selected = SCENARIOS.filter((s) => (filter ? filter.split('|').some((f) => s.name.includes(f)) : !s.onlyWhenNamed));
  const ctx = await startContext(Object.assign({}, ...selected.map((s) => s.apiEnv ?? {})));
  const results: ScenarioResult[] = [];
  try {
    for (const scenario of selected) {
      process.stdout.write(`running ${scenario.name} ...\n`);
      results.push(await scenario.run(ctx));
    }
  } finally {
    const peakRssMb = ctx.api.peakRssMb();
    await ctx.api.stop();
    ctx.cloudApi.close();
    if (process.env.BENCH_VERBOSE) console.log(ctx.api.log);
    await dropDatabase(ctx.databaseUrl);
    // The queues' keys of this run (Redis is shared; the run leaves nothing behind).
    await deleteRedisKeys(ctx.env.REDIS_KEY_PREFIX, ctx.env.REDIS_URL);
    print(results, peakRssMb);
  }
}

function print(results: ScenarioResult[], peakRssMb: number): void {
  const lines = [
    row([
      'scenario',
      'API req/s',
      'API p50 ms',
      'API p99 ms',
      'baseline req/s',
      'baseline p50 ms',
      'baseline p99 ms',
      'ratio',
      'target',
      'cost rate req/s',
      'CPU µs/req API (of it PostgreSQL)',
      'CPU µs/req baseline (PostgreSQL)',
      'p99 ms at that rate API / baseline',
      'cost ratio',
      'floor',
      'other checks',
      'result',
    ]),
    row(Array(17).fill('---')),
  ];
  let allOk = true;
  const num = (value: number | undefined, digits = 0) => (value === undefined ? '–' : value.toFixed(digits));
  for (const r of results) {
    const ratioOk = r.ratioSecondary || r.ratio === undefined || r.targetRatio === undefined || r.ratio >= r.targetRatio;
    const costOk = !r.cost || r.costFloor === undefined || r.cost.ratio >= r.costFloor;
    const ok = ratioOk && costOk && r.checks.every((c) => c.ok);
    allOk &&= ok;
    lines.push(
      row([
        r.name,
        num(r.api?.requestsPerSecond),
        num(r.api?.p50Ms),
        num(r.api?.p99Ms),
        num(r.baseline?.requestsPerSecond),
        num(r.baseline?.p50Ms),
        num(r.baseline?.p99Ms),
        r.ratioSpread ? `${num(r.ratio, 2)} (${num(r.ratioSpread[0], 2)}–${num(r.ratioSpread[1], 2)})` : num(r.ratio, 2),
        r.targetRatio === undefined
          ? '–'
          : `${r.ratioSecondary ? '(was ' : ''}≥ ${r.targetRatio}${r.ratioSecondary ? ', not judged)' : ''}`,
        r.cost ? r.cost.rate : '–',
        r.cost ? `${num(r.cost.api.totalUs)} (${num(r.cost.api.postgresUs)})` : '–',
        r.cost ? `${num(r.cost.baseline.totalUs)} (${num(r.cost.baseline.postgresUs)})` : '–',
        r.cost ? `${num(r.cost.api.p99Ms)} / ${num(r.cost.baseline.p99Ms)}` : '–',
        r.cost ? `${num(r.cost.ratio, 2)} (${num(r.cost.ratioSpread[0], 2)}–${num(r.cost.ratioSpread[1], 2)})` : '–',
        r.costFloor === undefined ? (r.cost ? 'not set' : '–') : `≥ ${r.costFloor}`,
        r.checks.map((c) => `${c.what}: ${c.ok ? 'ok' : 'MISSED'}`).join('; '),
        ok ? 'met' : 'MISSED',
      ]),
    );
  }
  const rssOk = peakRssMb <= API_RSS_LIMIT_MB;
  allOk &&= rssOk;
  lines.push('', `API peak RSS: ${peakRssMb} MB (target ≤ ${API_RSS_LIMIT_MB} MB: ${rssOk ? 'met' : 'MISSED'})`);
  console.log(`\n${lines.join('\n')}\n`);
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(`bench/results/${new Date().toISOString().replace(/[:.]/g, '-')}.json`, JSON.stringify({ results, peakRssMb }, null, 2));
  if (!allOk) process.exitCode = 1;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
