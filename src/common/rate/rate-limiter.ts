import { createHash } from 'node:crypto';
import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { AppConfig } from '../../config/app-config.js';

/**
 * A second and a margin, so that a receiver's clock, which sees each start a little late or early,
 * still counts at most `limit` a second.
 */
export const ONE_SECOND_WINDOW_MS = 1010;

/**
 * Lua shared by every limiter script: Redis's clock (ms), and a sliding log of starts kept as a
 * list of start times. `sliding_trim` drops what left the window; `sliding_wait` trims and answers
 * 0 when fewer than `limit` starts remain, else the ms until the oldest that counts leaves it;
 * `sliding_record` records a start. Feature scripts (the send governor's) are built on these.
 */
export const SLIDING_LOG_LUA = `
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function sliding_trim(key, window, now)
  while true do
    local oldest = redis.call('LINDEX', key, 0)
    if not oldest or tonumber(oldest) > now - window then break end
    redis.call('LPOP', key)
  end
end
local function sliding_wait(key, limit, window, now)
  sliding_trim(key, window, now)
  if redis.call('LLEN', key) >= limit then
    return tonumber(redis.call('LINDEX', key, -limit)) + window - now
  end
  return 0
end
local function sliding_record(key, window, now)
  redis.call('RPUSH', key, now)
  redis.call('PEXPIRE', key, window * 2)
end
`;

/**
 * Every rule at once: when each allows a start, records it in all of them and answers 0; otherwise
 * records nothing and answers the longest wait. ARGV per rule: limit, window, and 1 when the rule's
 * second key (its back-off flag) halves the limit while it exists.
 */
const TRY_START = `${SLIDING_LOG_LUA}
local now = now_ms()
local rules = #ARGV / 3
local wait = 0
for i = 1, rules do
  local limit = tonumber(ARGV[3 * i - 2])
  if ARGV[3 * i] == '1' and redis.call('EXISTS', KEYS[2 * i]) == 1 then limit = math.max(1, math.floor(limit / 2)) end
  local w = sliding_wait(KEYS[2 * i - 1], limit, tonumber(ARGV[3 * i - 1]), now)
  if w > wait then wait = w end
end
if wait > 0 then return wait end
for i = 1, rules do sliding_record(KEYS[2 * i - 1], tonumber(ARGV[3 * i - 1]), now) end
return 0
`;

/** Starts recorded in the last `window` ms (a start recorded ahead, as the send governor reserves them, counts once it is due). */
const COUNT = `${SLIDING_LOG_LUA}
local now = now_ms()
local n = 0
for _, at in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  local t = tonumber(at)
  if t > now - tonumber(ARGV[1]) and t <= now then n = n + 1 end
end
return n
`;

/** A start now, whatever the log holds (a start the provider told us about). */
const RECORD = `${SLIDING_LOG_LUA}
sliding_record(KEYS[1], tonumber(ARGV[1]), now_ms())
return 0
`;

/** At most `limit` starts in any `windowMs` under `key`; `halvedWhile` names a flag that halves the limit while it is set. */
export interface RateRule {
  key: string;
  limit: number;
  windowMs: number;
  halvedWhile?: string;
}

/**
 * Sliding-log rate limits kept in Redis, so they hold across every API process and worker: the
 * webhook endpoints' throttle (API.md §11.1) and the send governor's throughput, pair rate and
 * calls per second (§13). A start is asked for just before it happens, so the logs count real
 * starts; one that may not start yet is told how long to wait (waiting is the caller's choice: in
 * process, or a job queued again for later). Keys are relative to the deployment's key prefix.
 */
@Injectable()
export class RateLimiter implements OnApplicationShutdown {
  /** Workers' checks: commands wait out a Redis outage (a job can wait; it must not fail for it). */
  private readonly redis: Redis;
  /**
   * Checks made while an HTTP client waits for the answer: no queueing and no retry through an
   * outage, so the request fails at once ({@link RedisUnreachable}, a 503) instead of hanging until
   * Redis is back, and a refused request leaves no command behind to run later.
   */
  private readonly failFastRedis: Redis;
  private readonly prefix: string;
  /** Each script's SHA-1, by its text (see {@link call}). */
  private readonly shas = new Map<string, string>();

  constructor(config: AppConfig) {
    this.redis = new Redis(config.redis.url, {
      maxRetriesPerRequest: null,
      enableAutoPipelining: true,
      connectionName: 'rate-limiter',
    });
    this.failFastRedis = new Redis(config.redis.url, {
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      enableAutoPipelining: true,
      connectionName: 'rate-limiter-requests',
    });
    for (const redis of [this.redis, this.failFastRedis]) redis.on('error', () => undefined);
    this.prefix = `${config.redis.keyPrefix}:`;
  }

  onApplicationShutdown(): void {
    this.redis.disconnect();
    this.failFastRedis.disconnect();
  }

  /** Records a start now in every rule when all allow it (answers 0); otherwise answers how many ms to wait before asking again. */
  async tryStart(rules: RateRule[]): Promise<number> {
    const keys = rules.flatMap((rule) => [this.prefix + rule.key, this.prefix + (rule.halvedWhile ?? rule.key)]);
    const args = rules.flatMap((rule) => [rule.limit, rule.windowMs, rule.halvedWhile ? 1 : 0]);
    return Number(await this.call(this.redis, TRY_START, keys, args));
  }

  /** Records a start now under `key`, allowed or not. */
  async record(key: string, windowMs: number): Promise<void> {
    await this.call(this.redis, RECORD, [this.prefix + key], [windowMs]);
  }

  /** How many starts `key` recorded in the last `windowMs`. */
  async count(key: string, windowMs: number): Promise<number> {
    return Number(await this.call(this.redis, COUNT, [this.prefix + key], [windowMs]));
  }

  /** Sets a rule's back-off flag (`halvedWhile`) for `forMs`. */
  async halve(flag: string, forMs: number): Promise<void> {
    await this.redis.set(this.prefix + flag, '1', 'PX', forMs);
  }

  /**
   * Runs a script by its SHA (EVALSHA) rather than sending its text with every call (the scripts
   * run once per send, call and delivery); the first call on a connection, or after Redis lost its
   * script cache (a restart), gets NOSCRIPT and sends the text once, which loads it.
   */
  private async call(redis: Redis, script: string, keys: string[], args: Array<string | number>): Promise<unknown> {
    let sha = this.shas.get(script);
    if (!sha) {
      sha = createHash('sha1').update(script).digest('hex');
      this.shas.set(script, sha);
    }
    try {
      return await redis.evalsha(sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (!(err instanceof Error && err.message.startsWith('NOSCRIPT'))) throw err;
      return redis.eval(script, keys.length, ...keys, ...args);
    }
  }

  /** Runs a feature's own script (built on {@link SLIDING_LOG_LUA}); `keys` are relative to the prefix. */
  async run(script: string, keys: string[], args: Array<string | number>, mode: CheckMode = 'wait'): Promise<unknown> {
    const prefixed = keys.map((key) => this.prefix + key);
    if (mode === 'wait') return this.call(this.redis, script, prefixed, args);
    try {
      return await this.call(this.failFastRedis, script, prefixed, args);
    } catch (err) {
      // A script's own error (ReplyError) is a bug to surface; anything else is the connection.
      if (err instanceof Error && err.name === 'ReplyError') throw err;
      throw new RedisUnreachable(err);
    }
  }
}

/** `wait`: in a worker, through a Redis outage; `fail-fast`: in a request, failing at once when Redis is out of reach. */
export type CheckMode = 'wait' | 'fail-fast';

/** Redis was out of reach for a check made in a request: answered 503 `Redis:Unavailable` (nothing was written). */
export class RedisUnreachable extends Error {
  constructor(cause: unknown) {
    super('Redis is out of reach', { cause });
  }
}
