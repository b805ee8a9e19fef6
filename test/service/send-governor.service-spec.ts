import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import Redis from 'ioredis';
import { GovernorModule } from '../../src/governor/governor.module.js';
import { CATCH_UP_SPEED } from '../../src/governor/local-send-window.js';
import { CLOUD_THROUGHPUT_REACHED, SendGovernor, type MessageTurn, type ReservedStart } from '../../src/governor/send-governor.service.js';
import { serviceTestModule, type ServiceTestContext } from './support/service-module.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** At the default tier, 80 messages a second: a second and its 10 ms margin over 80. */
const INTERVAL_MS = 1010 / 80;
/** Redis's clock and ours both count whole ms, and each ask takes a round trip (whose jitter shifts a start as seen from here). */
const CLOCK_SLACK_MS = 5;

const newChannel = () => ({ id: randomUUID(), workspaceId: randomUUID(), whatsAppProvider: 'cloud-api' as const });
const recipient = (i: number) => `+1555000${String(i).padStart(4, '0')}`;
/** The channel's log of reserved starts (Redis's ms), behind "sent in the last second". */
async function redisLog(channelId: string): Promise<string[]> {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  try {
    return await redis.lrange(`${process.env.REDIS_KEY_PREFIX}:governor:${channelId}:sends`, 0, -1);
  } finally {
    redis.disconnect();
  }
}
/** The ms until the start reserved by `turn` (failing when none was). */
const reservedIn = (turn: MessageTurn) => {
  assert.ok(turn.reserved, `a start was reserved: ${JSON.stringify(turn)}`);
  return turn.inMs;
};

describe('The send governor reserves evenly spaced starts (service tier, real Redis)', () => {
  let ctx: ServiceTestContext;

  // No limits rows: the default tier, 80 a second; Meta's pair rate, one message per recipient per 6 s.
  before(async () => {
    ctx = await serviceTestModule([GovernorModule], { WHATSAPP_PAIR_RATE_INTERVAL_MS: '6000' });
  });
  after(() => ctx.close());

  it('spaces starts one interval apart and reserves at most a second ahead; the rest ask again when half of it is left', async () => {
    const governor = ctx.get(SendGovernor);
    const channel = newChannel();
    await governor.throughput(channel); // its limits read and cached: from here on each ask is one Redis round trip
    const starts: number[] = [];
    const reservedAhead: boolean[] = [];
    const comeBacks: number[] = [];
    const firstAsked = Date.now();
    for (let i = 0; i < 100; i++) {
      const asked = Date.now();
      const turn = await governor.messageStart(channel, recipient(i));
      if (turn.reserved) {
        starts.push(asked + turn.inMs);
        reservedAhead.push(turn.inMs > 0);
      } else comeBacks.push(turn.askAgainInMs);
    }
    const lastAsked = Date.now();
    assert.ok(Math.abs(starts[0] - firstAsked) <= CLOCK_SLACK_MS, `the first starts now (${starts[0] - firstAsked} ms)`);
    // The spacing itself, from the starts as Redis reserved them (its log, to a tenth of a ms): seen from here, each start
    // carries its own round trip's delay. A start reserved ahead is the line's next, one interval after the one before; a
    // start given "now" (its ask came after the line's next had passed: a busy machine) is later, never closer.
    const reserved = (await redisLog(channel.id)).map(Number);
    assert.equal(reserved.length, starts.length, 'each reserved start is in the log');
    for (let i = 1; i < reserved.length; i++) {
      const gap = reserved[i] - reserved[i - 1];
      if (reservedAhead[i]) assert.ok(Math.abs(gap - INTERVAL_MS) <= 0.2, `start ${i}, reserved ahead, is ${gap} ms after the one before`);
      else assert.ok(gap >= INTERVAL_MS - 0.2, `start ${i} is ${gap} ms after the one before`);
    }
    assert.ok(reservedAhead.filter(Boolean).length >= reserved.length / 2, `${reservedAhead.filter(Boolean).length} starts reserved ahead`);
    // Up to a second ahead and no further: the asks past it were told to come back.
    const last = starts[starts.length - 1] - lastAsked;
    assert.ok(last <= 1000 + CLOCK_SLACK_MS, `nothing reserved beyond a second ahead (${last} ms)`);
    assert.ok(comeBacks.length > 0, 'asks past the horizon are told to come back');
    for (const wait of comeBacks) assert.ok(wait >= 400 && wait <= 520, `asked to come back in ${wait} ms`);
  });

  it('does not let a late sender push the starts after it back, nor an idle channel owe a burst', async () => {
    const governor = ctx.get(SendGovernor);
    const channel = newChannel();
    await governor.throughput(channel);
    const firstAsked = Date.now();
    for (let i = 0; i < 10; i++) reservedIn(await governor.messageStart(channel, recipient(i)));
    // Nobody sends these ten; 3 intervals later the 11th is still due 10 intervals after the first.
    await sleep(3 * INTERVAL_MS);
    const asked = Date.now();
    const eleventh = reservedIn(await governor.messageStart(channel, recipient(10)));
    const due = firstAsked + 10 * INTERVAL_MS - asked;
    assert.ok(Math.abs(eleventh - due) <= CLOCK_SLACK_MS, `the 11th start is due in ${eleventh} ms (${due.toFixed(1)} expected)`);
    // Idle for a second: the next start is now, and the one after it an interval later, not at once.
    await sleep(1100);
    assert.ok(reservedIn(await governor.messageStart(channel, recipient(11))) <= CLOCK_SLACK_MS);
    const next = reservedIn(await governor.messageStart(channel, recipient(12)));
    assert.ok(next >= INTERVAL_MS - CLOCK_SLACK_MS, `after an idle second the second start waits its interval (${next} ms)`);
    // The log behind "sent in the last second" keeps only that second: the eleven starts before the idle second are gone.
    assert.equal((await redisLog(channel.id)).length, 2);
  });

  it('lets a process that comes late to its starts catch up at 1.05 times the tier, two at once at most, not all at once', async () => {
    const governor = ctx.get(SendGovernor);
    const channel = newChannel();
    await governor.throughput(channel);
    const turns = [];
    for (let i = 0; i < 20; i++) {
      const turn = await governor.messageStart(channel, recipient(i));
      assert.ok(turn.reserved);
      turns.push(turn);
    }
    await sleep(20 * INTERVAL_MS + 50); // every start overdue
    const leftAt = await Promise.all(
      turns.map(async (turn) => {
        await governor.waitForStart(turn);
        return governor.spaceFromLastSend(channel.id, turn);
      }),
    );
    leftAt.sort((a, b) => a - b);
    // Two at once, then at most 1.05 times as often as the channel's interval: n sends span at least (n - 2) catch-up
    // intervals. The instants are the governor's own (a caller's clock after its await trails them by whatever else the
    // event loop runs first: a CI run once saw 3 ms), less 0.01 ms for floating point.
    const catchUpMs = INTERVAL_MS / CATCH_UP_SPEED;
    for (let i = 0; i < leftAt.length; i++)
      for (let j = i + 2; j < leftAt.length; j++) {
        const span = leftAt[j] - leftAt[i];
        assert.ok(span >= (j - i - 1) * catchUpMs - 0.01, `sends ${i} to ${j} left within ${span.toFixed(2)} ms`);
      }
    // They catch up rather than wait out a window: at the catch-up pace they span 18 intervals; timers that fire late on a busy machine add to that.
    assert.ok(leftAt[19] - leftAt[0] < 2 * 19 * INTERVAL_MS, `they catch up: 20 left over ${Math.round(leftAt[19] - leftAt[0])} ms`);
  });

  for (const [tier, intervalMs, when] of [
    [80, INTERVAL_MS, 'at its tier'],
    [40, 2 * INTERVAL_MS, 'in a 130429 back-off, at half of it'],
  ] as const)
    it(`holds a process with more overdue sends than a second's worth to the tier in any second, ${when}`, async () => {
      const governor = ctx.get(SendGovernor);
      const channelId = randomUUID();
      // Starts as the governor answers them (its interval, to the µs), all due already.
      const turn: ReservedStart = { reserved: true, inMs: 0, startAt: performance.now(), intervalMs };
      const leftAt = await Promise.all(Array.from({ length: tier + 1 }, () => governor.spaceFromLastSend(channelId, turn)));
      leftAt.sort((a, b) => a - b);
      // At 1.05 times the interval the tier's worth leaves within a second; the one more waits for the first to be a second old.
      assert.ok(leftAt[tier - 1] - leftAt[0] < 1000, `the first ${tier} left within ${Math.round(leftAt[tier - 1] - leftAt[0])} ms`);
      assert.ok(leftAt[tier] - leftAt[0] >= 1000, `send ${tier + 1} left ${Math.round(leftAt[tier] - leftAt[0])} ms after the first`);
    });

  it('gives received messages places in the line: each takes an interval, at most a second’s worth at once, two in a back-off', async () => {
    const governor = ctx.get(SendGovernor);
    const channel = newChannel();
    await governor.throughput(channel);
    // Ten received: the next send starts ten intervals from now.
    const line = await governor.inboundReceived(channel, 10);
    assert.ok(Math.abs(line - 10 * INTERVAL_MS) <= CLOCK_SLACK_MS, `the line is ${line} ms out`);
    const next = reservedIn(await governor.messageStart(channel, recipient(1)));
    assert.ok(Math.abs(next - 10 * INTERVAL_MS) <= CLOCK_SLACK_MS, `the next send starts in ${next} ms`);
    // A burst of 1,000 at a tier of 80 takes one second's places, not twelve.
    const other = newChannel();
    await governor.throughput(other);
    const burst = await governor.inboundReceived(other, 1000);
    assert.ok(Math.abs(burst - 80 * INTERVAL_MS) <= CLOCK_SLACK_MS, `a burst moved the line ${burst} ms out`);
    // In a 130429 back-off each received message takes two intervals, as each send does.
    const slowed = newChannel();
    await governor.rateLimited(slowed, recipient(2), CLOUD_THROUGHPUT_REACHED);
    const halved = await governor.inboundReceived(slowed, 3);
    assert.ok(Math.abs(halved - 6 * INTERVAL_MS) <= CLOCK_SLACK_MS, `in a back-off three moved the line ${halved} ms out`);
  });

  it('holds a recipient for the pair rate without reserving the channel, and halves the channel after a 130429', async () => {
    const governor = ctx.get(SendGovernor);
    const channel = newChannel();
    reservedIn(await governor.messageStart(channel, recipient(1)));
    const again = await governor.messageStart(channel, recipient(1));
    assert.ok(
      !again.reserved && again.askAgainInMs > 5900 && again.askAgainInMs <= 6000,
      `the same recipient waits ~6 s: ${JSON.stringify(again)}`,
    );
    const other = reservedIn(await governor.messageStart(channel, recipient(2)));
    assert.ok(other <= INTERVAL_MS + CLOCK_SLACK_MS, `another recipient takes the next start (${other} ms): the held one reserved nothing`);

    await governor.rateLimited(channel, recipient(3), CLOUD_THROUGHPUT_REACHED);
    const first = reservedIn(await governor.messageStart(channel, recipient(4)));
    const second = reservedIn(await governor.messageStart(channel, recipient(5)));
    assert.ok(second - first >= 2 * INTERVAL_MS - CLOCK_SLACK_MS, `halved: starts ${second - first} ms apart`);
  });
});
