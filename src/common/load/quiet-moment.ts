import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

/** How long a look at the process lasts. */
const WINDOW_MS = 250;
/** Busier than this share of a window, the event loop is not quiet. */
const BUSY_SHARE = 0.5;

/**
 * Background work that may wait (a recording's analysis) gives way to the work people wait for
 * (calls in progress, their outcome webhooks): it starts once `busy()` is false and this process's
 * event loop was less than half busy over a quarter of a second, or at `deadline` whatever the
 * load, so that under a steady load it still runs, only later.
 */
export async function quietMoment(deadline: number, busy: () => boolean = () => false): Promise<void> {
  while (Date.now() < deadline) {
    const before = performance.eventLoopUtilization();
    await sleep(Math.min(WINDOW_MS, Math.max(1, deadline - Date.now())));
    if (!busy() && performance.eventLoopUtilization(before).utilization < BUSY_SHARE) return;
  }
}
