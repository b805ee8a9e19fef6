import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { AppConfig } from '../config/app-config.js';
import { RateLimitExceeded } from './rate-limiting.errors.js';
import { policyLimits, RateLimitPolicy, type PolicyLimits } from './rate-limit-policy.js';

export interface RateLimitState {
  policy: RateLimitPolicy;
  limit: number;
  windowSeconds: number;
  remaining: number;
  resetSeconds: number;
}

/**
 * Fixed-window counters in Redis (rate-limiter-flexible), so a limit holds across replicas.
 * When Redis cannot answer, requests are let through (logged): an outage of the limiter must
 * not take the API down with it.
 */
@Injectable()
export class RateLimitService implements OnApplicationShutdown {
  private readonly logger = new Logger(RateLimitService.name);
  private readonly redis: Redis;
  private readonly limiters: Map<RateLimitPolicy, { limiter: RateLimiterRedis; limits: PolicyLimits }>;

  constructor(config: AppConfig) {
    // Its own connection that fails fast instead of queueing commands during an outage.
    // Auto-pipelining: the policies of one request, and concurrent requests, share writes to Redis.
    this.redis = new Redis(config.redis.url, {
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      enableAutoPipelining: true,
      connectionName: 'rate-limit',
    });
    this.redis.on('error', () => undefined);
    this.limiters = new Map(
      Object.entries(policyLimits(config)).map(([policy, limits]) => [
        policy as RateLimitPolicy,
        {
          limits,
          limiter: new RateLimiterRedis({
            storeClient: this.redis,
            keyPrefix: `${config.redis.keyPrefix}:rl:${policy}`,
            points: limits.points,
            duration: limits.windowSeconds,
            rejectIfRedisNotReady: true,
          }),
        },
      ]),
    );
  }

  onApplicationShutdown(): void {
    this.redis.disconnect();
  }

  /** Counts one request against `policy` for `key`; throws a 429 domain error when over the limit. */
  async consume(policy: RateLimitPolicy, key: string): Promise<RateLimitState | undefined> {
    const { limiter, limits } = this.entry(policy);
    try {
      return toState(policy, limits, await limiter.consume(key, 1));
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) {
        this.logger.warn({ err: rejection }, `Rate limiter unavailable; letting the request through`);
        return undefined;
      }
      const state = toState(policy, limits, rejection);
      throw RateLimitExceeded(policy, limits.points, limits.windowSeconds, state.resetSeconds, {
        ...rateLimitHeaders(state),
        'Retry-After': String(state.resetSeconds),
      });
    }
  }

  /** What remains of a policy for `key` without counting anything. */
  async peek(policy: RateLimitPolicy, key: string): Promise<RateLimitState> {
    const { limiter, limits } = this.entry(policy);
    const res = await limiter.get(key).catch(() => null);
    if (!res) return { policy, limit: limits.points, windowSeconds: limits.windowSeconds, remaining: limits.points, resetSeconds: 0 };
    return toState(policy, limits, res);
  }

  private entry(policy: RateLimitPolicy) {
    const entry = this.limiters.get(policy);
    if (!entry) throw new Error(`Unknown rate limit policy ${policy}`);
    return entry;
  }
}

function toState(policy: RateLimitPolicy, limits: PolicyLimits, res: RateLimiterRes): RateLimitState {
  return {
    policy,
    limit: limits.points,
    windowSeconds: limits.windowSeconds,
    remaining: Math.max(0, limits.points - res.consumedPoints),
    resetSeconds: Math.max(0, Math.ceil(res.msBeforeNext / 1000)),
  };
}

export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(state.limit),
    'X-RateLimit-Remaining': String(state.remaining),
    'X-RateLimit-Reset': String(state.resetSeconds),
  };
}
