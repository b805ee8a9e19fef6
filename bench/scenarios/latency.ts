import { load } from '../harness.js';
import type { ScenarioResult } from './index.js';

/**
 * A latency target: measured one request at a time (the latency a caller sees), and reported under
 * 8 concurrent connections too (where, on 2 cores shared with PostgreSQL and the load generator,
 * queueing dominates). autocannon gives p97.5, not p95; p97.5 is quoted, which is never below p95.
 */
export async function latencyScenario(name: string, targetMs: number, options: Parameters<typeof load>[0]): Promise<ScenarioResult> {
  const serial = await load({ ...options, connections: 1 });
  const loaded = await load({ ...options, connections: 8 });
  return {
    name,
    api: serial,
    checks: [
      { what: `1 connection: p97.5 ${serial.p97_5Ms} ms (≥ p95) ≤ ${targetMs} ms`, ok: serial.p97_5Ms <= targetMs },
      {
        what: `(8 connections: ${Math.round(loaded.requestsPerSecond)} req/s, p50 ${loaded.p50Ms} ms, p97.5 ${loaded.p97_5Ms} ms)`,
        ok: true,
      },
      { what: 'no errors or non-2xx', ok: serial.errors + loaded.errors === 0 && serial.non2xx + loaded.non2xx === 0 },
    ],
  };
}
