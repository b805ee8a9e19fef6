import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { AppConfig } from '../config/app-config.js';

/** A second and a margin, so that the receiver's clock, which sees each start a little late or early, still counts at most `limit` a second. */
const WINDOW_MS = 1010;

/**
 * A sliding log of an endpoint's attempt starts (Redis time, ms): when fewer than `limit` started in
 * the last window, records this one and answers 0; otherwise answers how many ms until the oldest
 * leaves the window.
 */
const TRY_START = `
local limit = tonumber(ARGV[1])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
while true do
  local oldest = redis.call('LINDEX', KEYS[1], 0)
  if not oldest or tonumber(oldest) > now - WINDOW then break end
  redis.call('LPOP', KEYS[1])
end
if redis.call('LLEN', KEYS[1]) >= limit then
  return tonumber(redis.call('LINDEX', KEYS[1], -limit)) + WINDOW - now
end
redis.call('RPUSH', KEYS[1], now)
redis.call('PEXPIRE', KEYS[1], WINDOW * 2)
return 0
`.replaceAll('WINDOW', String(WINDOW_MS));

/**
 * The per-endpoint throttle of API.md §11.1, shared by every worker: no more than `limit` attempts
 * to an endpoint start in any one second. An attempt asks just before it starts, so the count is of
 * real starts; one that may not start yet is told how long to wait.
 */
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

  /** Records a start now when the limit allows it (answers 0); otherwise answers how many ms to wait before asking again. */
  async tryStart(endpointId: string, limitPerSecond: number): Promise<number> {
    return Number(await this.redis.eval(TRY_START, 1, this.prefix + endpointId, limitPerSecond));
  }
}
