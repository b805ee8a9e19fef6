import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config.js';
import { ONE_SECOND_WINDOW_MS, RateLimiter, SLIDING_LOG_LUA, type CheckMode } from '../common/rate/rate-limiter.js';
import { MessagingLimitReached } from './governor.errors.js';
import { ChannelLimitsService, type GovernedChannel } from './channel-limits.service.js';
import type { Limits, TiersSetBy } from './channel-limits.entity.js';
import { LocalSendWindow } from './local-send-window.js';

const DAY_MS = 24 * 3600 * 1000;
/** Meta's pair rate: one message to a recipient per 6 s per number. */
const META_PAIR_INTERVAL_MS = 6000;
/**
 * How far ahead a message's start may be reserved. The sender holds the message (and a job slot)
 * until then, so this bounds that wait; a message whose start would be later is told to ask again.
 */
const RESERVATION_HORIZON_MS = 1000;
/** Meta's throughput counts messages a second: what a process's own sends on a channel are held to (see {@link LocalSendWindow}). */
const THROUGHPUT_SECOND_MS = 1000;
/** How long a 130429 (throughput reached) halves the channel's throughput. */
const THROUGHPUT_BACK_OFF_MS = 60_000;
/** How often a call waiting for one of the channel's concurrent places asks again (no event says when one frees). */
const CALL_PLACE_POLL_MS = 1000;

/** Meta's rate-limit answers the governor backs off on. */
export const CLOUD_THROUGHPUT_REACHED = 130429;
export const CLOUD_PAIR_RATE_REACHED = 131056;

/**
 * A message's start in the channel's line, reserved in one step so that every process shares the
 * line. The channel keeps the next free start (KEYS[1]); each reservation takes it and moves it on
 * by one interval (ARGV[1] ms: a second with its margin over the tier, doubled while the 130429
 * back-off flag KEYS[2] is set), so starts are spaced evenly and a sender that is late for its
 * start (a timer, a busy process) does not push the starts after it back. A sliding log of starts,
 * which this replaced, frees a place only a window after its last start: every late start delayed
 * its place's next one, and under load the channel ran 6-11% under its tier, measured.
 * A free start in the past is not given out: a channel idle for a while does not owe a burst.
 * KEYS[3] logs the starts for "sent in the last second"; KEYS[4] is the recipient's pair-rate log
 * (one start per ARGV[3] ms, off at 0), checked first: a recipient held by it reserves nothing.
 * ARGV[2]: the horizon. Answers {1, ms until the start, the interval in µs} or {0, ms to wait before asking again}.
 */
const RESERVE_MESSAGE_SLOT = `${SLIDING_LOG_LUA}
local now = now_ms()
local pair_window = tonumber(ARGV[3])
if pair_window > 0 then
  local wait = sliding_wait(KEYS[4], 1, pair_window, now)
  if wait > 0 then return {0, wait} end
end
local interval = tonumber(ARGV[1])
if redis.call('EXISTS', KEYS[2]) == 1 then interval = interval * 2 end
local horizon = tonumber(ARGV[2])
local at = math.max(tonumber(redis.call('GET', KEYS[1]) or '0'), now)
-- Told to come back when half the horizon is left, so that waiting senders do not all ask at every start.
if at - now > horizon then return {0, math.ceil(at - now - horizon / 2)} end
redis.call('SET', KEYS[1], tostring(at + interval), 'PX', math.ceil(horizon + 60000))
sliding_trim(KEYS[3], ${ONE_SECOND_WINDOW_MS}, now)
sliding_record(KEYS[3], ${ONE_SECOND_WINDOW_MS}, at)
if pair_window > 0 then sliding_record(KEYS[4], pair_window, at) end
return {1, math.ceil(at - now), math.floor(interval * 1000)}
`;

/**
 * Messages received on the channel (ARGV[2] of them): Meta's throughput counts inbound messages with
 * outbound ones, so they take places in the channel's line as sends do. They came already, so they
 * cannot be spaced: the line's next free start (KEYS[1], from now at the earliest) moves on by an
 * interval (ARGV[1], doubled in a 130429 back-off, KEYS[2]) for each, at most a second's worth at
 * once (ARGV[3] places), so a burst of arrivals delays the sends after it by up to a second rather
 * than by its whole size. Answers the ms until the line's next free start.
 */
const RECORD_INBOUND = `${SLIDING_LOG_LUA}
local now = now_ms()
local interval = tonumber(ARGV[1])
if redis.call('EXISTS', KEYS[2]) == 1 then interval = interval * 2 end
local taken = math.min(tonumber(ARGV[2]), tonumber(ARGV[3]))
local at = math.max(tonumber(redis.call('GET', KEYS[1]) or '0'), now) + taken * interval
redis.call('SET', KEYS[1], tostring(at), 'PX', math.ceil(at - now + 60000))
return math.ceil(at - now)
`;

/**
 * The recipient counted in the rolling 24 h for the first time (answers 1 and the time it was
 * counted), already counted (0), or refused (-1 and the ms until the oldest leaves the window).
 */
const RESERVE_RECIPIENT = `${SLIDING_LOG_LUA}
local now = now_ms()
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - ${DAY_MS})
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return {0, 0} end
local limit = tonumber(ARGV[2])
if limit >= 0 and redis.call('ZCARD', KEYS[1]) >= limit then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  -- A limit of 0 (Meta restricted business-initiated messaging) with nobody counted: a day.
  if oldest[2] == nil then return {-1, ${DAY_MS}} end
  return {-1, tonumber(oldest[2]) + ${DAY_MS} - now}
end
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('PEXPIRE', KEYS[1], ${DAY_MS})
return {1, now}
`;

/** Takes back a reservation made at ARGV[2] (not a later one of the same recipient). */
const RELEASE_RECIPIENT = `
if redis.call('ZSCORE', KEYS[1], ARGV[1]) == ARGV[2] then redis.call('ZREM', KEYS[1], ARGV[1]) end
return 0
`;

/** 1 when the recipient is counted in the rolling 24 h already, else 0. */
const RECIPIENT_COUNTED = `${SLIDING_LOG_LUA}
local at = redis.call('ZSCORE', KEYS[1], ARGV[1])
if at and tonumber(at) > now_ms() - ${DAY_MS} then return 1 end
return 0
`;

/** Recipients counted in the rolling 24 h. */
const COUNT_RECIPIENTS = `${SLIDING_LOG_LUA}
return redis.call('ZCOUNT', KEYS[1], now_ms() - ${DAY_MS}, '+inf')
`;

/** Calls in progress (those older than ARGV[1] ms taken back, as in {@link START_CALL}). */
const COUNT_ACTIVE_CALLS = `${SLIDING_LOG_LUA}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now_ms() - tonumber(ARGV[1]))
return redis.call('ZCARD', KEYS[1])
`;

/**
 * A call may be placed (answers 0, and it holds one of the channel's concurrent places until
 * {@link SendGovernor.callEnded}) or must wait (ms). KEYS: the calls-per-second log, the calls in
 * progress (request id → when placed; a place older than ARGV[4] ms is taken back, in case its end
 * was never reported). ARGV: calls/s, concurrent calls, request id, the stale age, the poll interval.
 */
const START_CALL = `${SLIDING_LOG_LUA}
local now = now_ms()
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[4]))
if redis.call('ZSCORE', KEYS[2], ARGV[3]) then return 0 end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[2]) then return tonumber(ARGV[5]) end
local wait = sliding_wait(KEYS[1], tonumber(ARGV[1]), ${ONE_SECOND_WINDOW_MS}, now)
if wait > 0 then return wait end
sliding_record(KEYS[1], ${ONE_SECOND_WINDOW_MS}, now)
redis.call('ZADD', KEYS[2], now, ARGV[3])
redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[4]))
return 0
`;

/** A start reserved for a message: `inMs` from the answer (at `startAt` on `performance.now()`'s clock), one `intervalMs` after the channel's previous one. */
export interface ReservedStart {
  reserved: true;
  inMs: number;
  startAt: number;
  intervalMs: number;
}
/** The governor's answer for a message: a start reserved, or none and when to ask again. */
export type MessageTurn = ReservedStart | { reserved: false; askAgainInMs: number };

/** A recipient counted against the messaging limit by this send; `release` takes it back when the send is not written after all. */
export interface RecipientReservation {
  release(): Promise<void>;
}

/** GET /v1/channels/{id}/limits: the tiers and what the governor sees now. */
export interface ChannelUsage extends Limits {
  /** Who set the tiers last (null: the defaults). */
  setBy: TiersSetBy | null;
  qualityRating: string | null;
  businessId: string | null;
  sentLastSecond: number;
  uniqueRecipients24h: number;
  remaining24h: number | null;
  activeCalls: number;
}

/**
 * The send governor of API.md §13: one per channel number, kept in Redis so that every API process
 * and worker shares it. Messages: throughput (evenly spaced starts reserved in the channel's line,
 * see {@link RESERVE_MESSAGE_SLOT}, the interval doubled for a while after Meta's 130429), pair rate
 * (a log of one send per recipient per 6 s, filled for 6 s after Meta's 131056) and the messaging
 * limit (a sorted set recipient → when counted, checked and added in one script so two processes
 * cannot both take the last place). Calls: calls per second and calls in progress. Over throughput
 * or pair rate a message waits for its start, and over a call tier a call is told how long to wait
 * (nothing is refused for those); over the messaging limit a send is refused.
 */
@Injectable()
export class SendGovernor {
  /** This process's recent sends on each channel (see {@link spaceFromLastSend}). */
  private readonly localWindows = new Map<string, LocalSendWindow>();
  private readonly staleCallMs: number;
  /** Meta's pair rate: one message to a recipient per 6 s per number (configurable so that other features' tests can turn it off). */
  private readonly pairIntervalMs: number;

  constructor(
    private readonly limiter: RateLimiter,
    private readonly limits: ChannelLimitsService,
    config: AppConfig,
  ) {
    this.staleCallMs = config.voice.staleCallMinutes * 60_000;
    this.pairIntervalMs = config.whatsapp.pairRateIntervalMs;
  }

  /**
   * Asks for the message's place in the channel's line (see {@link RESERVE_MESSAGE_SLOT}): the
   * answer is either a start reserved `inMs` from now (0: now), counted against the throughput and
   * the recipient's pair rate, or, when the recipient's pair rate holds it or the channel's next
   * free start is beyond {@link RESERVATION_HORIZON_MS}, nothing reserved and how long to wait
   * before asking again. `recipient` is the Cloud API address (`to` or `recipient`).
   */
  async messageStart(channel: GovernedChannel, recipient: string): Promise<MessageTurn> {
    const { throughputPerSecond } = await this.limits.of(channel);
    const keys = [startsKey(channel.id), slowKey(channel.id), sendsKey(channel.id), pairKey(channel.id, recipient)];
    const [reserved, ms, intervalMicros] = (await this.limiter.run(RESERVE_MESSAGE_SLOT, keys, [
      ONE_SECOND_WINDOW_MS / throughputPerSecond,
      RESERVATION_HORIZON_MS,
      this.pairIntervalMs,
    ])) as [number, number, number];
    if (reserved !== 1) return { reserved: false, askAgainInMs: ms };
    return { reserved: true, inMs: ms, startAt: performance.now() + ms, intervalMs: intervalMicros / 1000 };
  }

  /**
   * `count` messages were received on the channel: they take their places in its line (see
   * {@link RECORD_INBOUND}), so its sends keep inbound and outbound together within the tier.
   * Answers the ms until the channel's next free start.
   */
  async inboundReceived(channel: GovernedChannel, count: number): Promise<number> {
    const { throughputPerSecond } = await this.limits.of(channel);
    return (await this.limiter.run(
      RECORD_INBOUND,
      [startsKey(channel.id), slowKey(channel.id)],
      [ONE_SECOND_WINDOW_MS / throughputPerSecond, count, throughputPerSecond],
    )) as number;
  }

  /** Waits until a reserved start is due. */
  async waitForStart(turn: ReservedStart): Promise<void> {
    const untilStart = turn.startAt - performance.now();
    if (untilStart > 0) await sleep(untilStart);
  }

  /**
   * Called just before the request of a send whose start was reserved (after {@link waitForStart}
   * and whatever the sender does between its start and its request). A process that came late to
   * its starts (starved of CPU, its event loop busy, its provider calls all under way) would let
   * all its overdue sends out at once, more than the tier in that moment at the provider; instead
   * it makes them up only as far as no second of this process's sends on the channel holds more
   * than the tier (halved during a 130429 back-off), and a little faster than the channel's
   * interval (see {@link LocalSendWindow}). A send on time does not wait here. Answers the instant
   * (performance.now()) the send was let out.
   */
  async spaceFromLastSend(channelId: string, turn: ReservedStart): Promise<number> {
    let window = this.localWindows.get(channelId);
    if (!window) {
      if (this.localWindows.size > 10_000) for (const [id, idle] of this.localWindows) if (idle.isIdle()) this.localWindows.delete(id);
      window = new LocalSendWindow(THROUGHPUT_SECOND_MS);
      this.localWindows.set(channelId, window);
    }
    // The interval is a second and its margin over the tier (doubled in a back-off): the tier as it stands now.
    const tierNow = Math.max(1, Math.floor(ONE_SECOND_WINDOW_MS / turn.intervalMs + 1e-9));
    return window.take(turn.intervalMs, tierNow);
  }

  /** The channel's tier in messages per second: what a sender queuing many messages paces itself to. */
  async throughput(channel: GovernedChannel): Promise<number> {
    return (await this.limits.of(channel)).throughputPerSecond;
  }

  /**
   * Meta refused a message for a rate limit: a 130429 halves the channel's throughput for a minute,
   * a 131056 holds the pair for 6 s. Answers how long the message should wait before it is tried again.
   */
  async rateLimited(channel: GovernedChannel, recipient: string, cloudErrorCode: number | undefined): Promise<number> {
    if (cloudErrorCode === CLOUD_PAIR_RATE_REACHED) {
      // Meta's 6 s, whatever this deployment's own interval is.
      await this.limiter.record(pairKey(channel.id, recipient), META_PAIR_INTERVAL_MS);
      return META_PAIR_INTERVAL_MS;
    }
    await this.limiter.halve(slowKey(channel.id), THROUGHPUT_BACK_OFF_MS);
    return ONE_SECOND_WINDOW_MS;
  }

  /**
   * Whether `recipient` is counted in the channel's rolling 24 h already: a send to them then opens
   * no new business-initiated conversation, whoever started the last one, and needs no further check.
   */
  async isRecipientCounted(channel: GovernedChannel, recipient: string, mode: CheckMode = 'wait'): Promise<boolean> {
    return Number(await this.limiter.run(RECIPIENT_COUNTED, [recipientsKey(channel)], [recipient], mode)) === 1;
  }

  /**
   * The messaging limit (API.md §13) for a business-initiated send to `recipient` (the caller
   * decides that: a template to someone who has not written to the channel in the last 24 h):
   * counts the recipient in the channel's rolling 24 h, or throws `WhatsApp:MessagingLimitReached`
   * (429, Retry-After) when the limit is reached and the recipient is not counted already. Another
   * feature (campaigns) catches that error by its code. When the send is then not written, call
   * `release`, so that a refused send does not use a place.
   */
  async reserveRecipient(channel: GovernedChannel, recipient: string, mode: CheckMode = 'wait'): Promise<RecipientReservation> {
    const { messagingLimit } = await this.limits.of(channel);
    const key = recipientsKey(channel);
    const [outcome, value] = (await this.limiter.run(RESERVE_RECIPIENT, [key], [recipient, messagingLimit ?? -1], mode)) as [
      number,
      number,
    ];
    if (outcome === -1) throw MessagingLimitReached(messagingLimit ?? 0, value);
    if (outcome === 0) return { release: () => Promise.resolve() };
    return {
      release: async () => {
        await this.limiter.run(RELEASE_RECIPIENT, [key], [recipient, value], mode);
      },
    };
  }

  /**
   * Just before a call is placed: answers 0 when the channel's calls per second and concurrent
   * calls allow it (the call then holds a place until {@link callEnded}); otherwise ms to wait.
   * Asking again for a call already holding a place answers 0.
   */
  async callStart(channel: GovernedChannel, requestId: string): Promise<number> {
    const { callsPerSecond, concurrentCalls } = await this.limits.of(channel);
    const keys = [callsKey(channel.id), activeCallsKey(channel.id)];
    return Number(
      await this.limiter.run(START_CALL, keys, [callsPerSecond, concurrentCalls, requestId, this.staleCallMs, CALL_PLACE_POLL_MS]),
    );
  }

  /** A call ended (or was never placed): its concurrent place is free. */
  async callEnded(channelId: string, requestId: string): Promise<void> {
    await this.limiter.run('redis.call("ZREM", KEYS[1], ARGV[1]) return 0', [activeCallsKey(channelId)], [requestId]);
  }

  /** The channel's tiers and live figures. */
  async usage(channel: GovernedChannel): Promise<ChannelUsage> {
    const { limits, setBy, qualityRating } = await this.limits.stateOf(channel);
    const [sentLastSecond, uniqueRecipients24h, activeCalls] = await Promise.all([
      this.limiter.count(sendsKey(channel.id), 1000),
      this.limiter.run(COUNT_RECIPIENTS, [recipientsKey(channel)], []).then(Number),
      this.limiter.run(COUNT_ACTIVE_CALLS, [activeCallsKey(channel.id)], [this.staleCallMs]).then(Number),
    ]);
    const remaining24h = limits.messagingLimit === null ? null : Math.max(0, limits.messagingLimit - uniqueRecipients24h);
    return {
      ...limits,
      setBy,
      qualityRating,
      businessId: channel.businessId ?? null,
      sentLastSecond,
      uniqueRecipients24h,
      remaining24h,
      activeCalls,
    };
  }
}

const sendsKey = (channelId: string) => `governor:${channelId}:sends`;
const startsKey = (channelId: string) => `governor:${channelId}:next-start`;
const slowKey = (channelId: string) => `governor:${channelId}:slow`;
const pairKey = (channelId: string, recipient: string) => `governor:${channelId}:pair:${recipient}`;
/**
 * The messaging limit's rolling 24 h (API.md §14): Meta counts it per business portfolio, so the
 * channels of a workspace with one `businessId` share a set; a channel without one keeps its own.
 * The workspace is part of the key: a businessId names a portfolio within one workspace only, so
 * another workspace typing the same id neither uses nor sees this count.
 */
const recipientsKey = (channel: GovernedChannel) =>
  channel.businessId ? `governor:business:${channel.workspaceId}:${channel.businessId}:recipients` : `governor:${channel.id}:recipients`;
const callsKey = (channelId: string) => `governor:${channelId}:calls`;
const activeCallsKey = (channelId: string) => `governor:${channelId}:active-calls`;
