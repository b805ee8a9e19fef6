import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { GovernorModule } from '../../src/governor/governor.module.js';
import { SendGovernor } from '../../src/governor/send-governor.service.js';
import { serviceTestModule, type ServiceTestContext } from './support/service-module.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('The send governor spreads a second’s sends (service tier, real Redis)', () => {
  let ctx: ServiceTestContext;

  before(async () => {
    ctx = await serviceTestModule([GovernorModule]);
  });
  after(() => ctx.close());

  it('lets a tenth of the tier start in any tenth of a second (80/s: 8 at once, the 9th waits at most ~101 ms)', async () => {
    const governor = ctx.get(SendGovernor);
    // No limits row: the defaults, 80 messages a second.
    const channel = { id: randomUUID(), workspaceId: randomUUID(), whatsAppProvider: 'cloud-api' as const };
    const ask = (i: number) => governor.messageStart(channel, `+1555000${String(i).padStart(4, '0')}`);
    const first = [];
    for (let i = 0; i < 10; i++) first.push(await ask(i));
    assert.deepEqual(first.slice(0, 8), [0, 0, 0, 0, 0, 0, 0, 0], 'a tenth of the tier starts at once');
    for (const wait of first.slice(8)) assert.ok(wait > 0 && wait <= 101, `the 9th and 10th wait for the tenth of a second (${wait} ms)`);
    await sleep(Math.max(...first.slice(8)) + 5);
    assert.equal(await ask(100), 0, 'once the tenth of a second has passed, sends start again');
  });
});
