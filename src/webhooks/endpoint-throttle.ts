import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { AppConfig } from '../config/app-config.js';

/**
 * Reserves the start time of the next attempt to an endpoint so that no more than `limit`
 * attempts start in any one second, across all workers: Redis keeps each endpoint's last `limit`
 * reserved start times (in its own clock), and the next one starts no sooner than a second after
 * the `limit`-th latest
 * (with a 10 ms margin). Excess attempts are given a later slot; none is refused.
 */
/** A second and a margin, so that the receiver's clock, which sees each start a little late or early, still counts at most `limit` a second. */
const WINDOW_MS = 1010;

const RESERVE = `
local limit = tonumber(ARGV[1])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local slot = now
if redis.call('LLEN', KEYS[1]) >= limit then
  local kth = tonumber(redis.call('LINDEX', KEYS[1], -limit))
  if kth + WINDOW > slot then slot = kth + WINDOW end
end
redis.call('RPUSH', KEYS[1], slot)
redis.call('LTRIM', KEYS[1], -limit, -1)
redis.call('PEXPIRE', KEYS[1], slot - now + 2000)
return slot - now
`.replace('WINDOW', String(WINDOW_MS));

@Injectable()
export class EndpointThrottle implements OnApplicationShutdown {
  private readonly redis: Redis;
  private readonly prefix: string;

  constructor(config: AppConfig) {
    this.redis = new Redis(config.redis.url, {
      maxRetriesPerRequest: null,
      enableAutoPipelining: true,
      connectionName: 'webhook-throttle',
    });
    this.redis.on('error', () => undefined);
    this.prefix = `${config.redis.keyPrefix}:webhook-throttle:`;
  }

  onApplicationShutdown(): void {
    this.redis.disconnect();
  }

  /** Takes the next start slot of the endpoint; answers how many ms from now it is (0: start now). */
  async reserve(endpointId: string, limitPerSecond: number): Promise<number> {
    return Number(await this.redis.eval(RESERVE, 1, this.prefix + endpointId, limitPerSecond));
  }
}
