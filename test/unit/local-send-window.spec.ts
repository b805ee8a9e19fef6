import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { CATCH_UP_SPEED, LocalSendWindow } from '../../src/governor/local-send-window.js';

/**
 * A small channel on a fast clock: at most 20 sends in any 200 ms, its starts reserved 11 ms apart
 * (18 in 200 ms: a margin of a tenth, larger than the service's hundredth, so that a test can wait
 * for a process to make up a stall out of it).
 */
const WINDOW_MS = 200;
const LIMIT = 20;
const INTERVAL_MS = 11;

/** The most of `times` (sorted) inside any window of `windowMs`. */
function busiestWindow(times: number[], windowMs: number): number {
  let most = 0;
  for (let first = 0, last = 0; last < times.length; last++) {
    while (times[last] - times[first] >= windowMs) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

/** Sends due at `dueAt` (performance.now() times), each let out by `window`; answers the instants it let each out. */
function sendAll(window: LocalSendWindow, dueAt: number[]): Promise<number[]> {
  return Promise.all(
    dueAt.map(async (at) => {
      const wait = at - performance.now();
      if (wait > 0) await sleep(wait);
      return window.take(INTERVAL_MS, LIMIT);
    }),
  );
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

describe('LocalSendWindow: what one process lets out on a channel', () => {
  it('lets sends on time go at their starts', async () => {
    const window = new LocalSendWindow(WINDOW_MS);
    const t0 = performance.now() + 20;
    const starts = Array.from({ length: 60 }, (_, i) => t0 + i * INTERVAL_MS);
    const left = await sendAll(window, starts);
    // Timers fire late by a ms or so here and there; a send on time waits at most what the ones before it were late.
    const lateness = median(left.map((at, i) => at - starts[i]));
    assert.ok(lateness < 3, `median lateness ${lateness.toFixed(1)} ms`);
    assert.ok(left[left.length - 1] - starts[starts.length - 1] < 2 * INTERVAL_MS, 'the last leaves about on time');
  });

  it('makes up a stall out of the margin, a little faster than the starts and two at once at most; no window holds more than the tier', async () => {
    const window = new LocalSendWindow(WINDOW_MS);
    const t0 = performance.now() + 20;
    const starts = Array.from({ length: 250 }, (_, i) => t0 + i * INTERVAL_MS);
    // Starts 20 to 27 come due while the process is stalled: all 8 are let in together, up to 80 ms late.
    const stallEnd = starts[27] + 1;
    const left = await sendAll(
      window,
      starts.map((at, i) => (i >= 20 && i <= 27 ? stallEnd : at)),
    );
    const sorted = [...left].sort((a, b) => a - b);
    const busiest = busiestWindow(sorted, WINDOW_MS);
    assert.ok(busiest <= LIMIT, `busiest ${WINDOW_MS} ms held ${busiest} sends`);
    // Three sends in a row span at least one catch-up interval (two may leave at once).
    const catchUpMs = INTERVAL_MS / CATCH_UP_SPEED;
    for (let i = 0; i + 2 < sorted.length; i++) {
      const span = sorted[i + 2] - sorted[i];
      assert.ok(span >= catchUpMs - 0.01, `sends ${i} to ${i + 2} left within ${span.toFixed(1)} ms`);
    }
    // Sends did leave late after the stall, and the process was back on time by the last start.
    assert.ok(sorted[28] - starts[28] > INTERVAL_MS, `the stall made the sends after it late (${(sorted[28] - starts[28]).toFixed(1)} ms)`);
    assert.ok(sorted[sorted.length - 1] - starts[starts.length - 1] < 2 * INTERVAL_MS, 'back on time by the last start');
  });

  it('holds a process asked for more than the tier at once to the tier: nothing is owed past the window', async () => {
    const window = new LocalSendWindow(WINDOW_MS);
    // A window's worth asked at once (a process that was idle owes no more than the tier), then ten more at once.
    const first = await sendAll(
      window,
      Array.from({ length: LIMIT }, () => 0),
    );
    const more = await sendAll(
      window,
      Array.from({ length: 10 }, () => 0),
    );
    const all = [...first, ...more].sort((a, b) => a - b);
    const busiest = busiestWindow(all, WINDOW_MS);
    assert.ok(busiest <= LIMIT, `busiest window held ${busiest}`);
    const waited = Math.min(...more) - all[0];
    assert.ok(waited >= WINDOW_MS, `the 21st waited for the first to leave the window (${waited.toFixed(1)} ms)`);
  });
});
