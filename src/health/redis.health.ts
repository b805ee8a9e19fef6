import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import Redis from 'ioredis';
import { AppConfig } from '../config/app-config.js';

/** Pings Redis over a connection that fails fast, so readiness answers during an outage. */
@Injectable()
export class RedisHealthIndicator implements OnApplicationShutdown {
  private readonly redis: Redis;

  constructor(
    config: AppConfig,
    private readonly indicator: HealthIndicatorService,
  ) {
    this.redis = new Redis(config.redis.url, {
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      connectTimeout: 1000,
      connectionName: 'health',
      retryStrategy: () => 1000,
    });
    this.redis.on('error', () => undefined);
  }

  async check(key = 'redis') {
    const indicator = this.indicator.check(key);
    try {
      await Promise.race([this.redis.ping(), new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 1000))]);
      return indicator.up();
    } catch (err) {
      return indicator.down({ message: (err as Error).message });
    }
  }

  onApplicationShutdown(): void {
    this.redis.disconnect();
  }
}
