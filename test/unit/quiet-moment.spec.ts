import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { quietMoment } from '../../src/common/load/quiet-moment.js';

/** Keeps the event loop busy for `ms` in slices, yielding between them, so timers still fire. */
async function spin(ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const slice = Date.now() + 20;
    while (Date.now() < slice) {
      // busy
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('quietMoment: background work gives way to a busy worker', () => {
  it('starts within a look when nothing is busy', async () => {
    const started = Date.now();
    await quietMoment(started + 5_000);
    assert.ok(Date.now() - started < 1_000, `took ${Date.now() - started} ms`);
  });

  it('waits while calls are in progress, and starts once they are over', async () => {
    let calls = 1;
    setTimeout(() => (calls = 0), 800);
    const started = Date.now();
    await quietMoment(started + 10_000, () => calls > 0);
    const waited = Date.now() - started;
    assert.ok(waited >= 800 && waited < 2_000, `waited ${waited} ms`);
  });

  it('waits while the event loop is busy', async () => {
    const started = Date.now();
    const gate = quietMoment(started + 10_000);
    const spinning = spin(1_000);
    await gate;
    assert.ok(Date.now() - started >= 900, `started ${Date.now() - started} ms into a busy second`);
    await spinning;
  });

  it('starts at its deadline however busy', async () => {
    const started = Date.now();
    await quietMoment(started + 600, () => true);
    const waited = Date.now() - started;
    assert.ok(waited >= 590 && waited < 1_200, `waited ${waited} ms`);
  });
});
