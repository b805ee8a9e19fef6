import { Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { AppConfig } from '../config/app-config.js';

/** Room for one waiting listener per job handler (a dozen today) and Bull's and ioredis' own. */
const SHARED_CONNECTION_MAX_LISTENERS = 64;

/**
 * The Redis connections of the queues. Bull reuses one command connection and one subscriber
 * across all queues (each worker's blocking connection is its own), and leaves closing
 * connections it did not create to us: {@link closeAll} does it after the queues have closed.
 */
@Injectable()
export class QueueRedisConnections {
  private readonly shared: Partial<Record<'client' | 'subscriber', Redis>> = {};
  private readonly all: Redis[] = [];
  private readonly blocking = new Set<Redis>();

  constructor(private readonly config: AppConfig) {}

  connectionFor(type: 'client' | 'subscriber' | 'bclient'): Redis {
    if (type === 'bclient') {
      const redis = this.open();
      this.blocking.add(redis);
      return redis;
    }
    return (this.shared[type] ??= this.openShared());
  }

  /**
   * A connection all queues share. Until it is ready, Bull's `process()` adds an `error` listener
   * to it per job handler (removed once ready), so the default cap of 10 warned of a leak that is
   * not one as soon as a process bound more than a few handlers before Redis answered.
   */
  private openShared(): Redis {
    const redis = this.open();
    redis.setMaxListeners(SHARED_CONNECTION_MAX_LISTENERS);
    return redis;
  }

  /**
   * Calls `listener` each time the queues' command connection is ready again after it lost Redis:
   * a Redis restarted without persistence, or a failover, may have lost every job it held.
   */
  onReconnected(listener: () => void): void {
    const client = this.connectionFor('client');
    let lost = false;
    client.on('close', () => (lost = true));
    client.on('ready', () => {
      if (!lost) return;
      lost = false;
      listener();
    });
  }

  async closeAll(): Promise<void> {
    // A blocking connection is waiting in BRPOPLPUSH: cut it rather than queue a QUIT behind it.
    await Promise.all(
      this.all.map((redis) => (this.blocking.has(redis) ? redis.disconnect() : redis.quit().catch(() => redis.disconnect()))),
    );
  }

  private open(): Redis {
    // `null` retries: commands wait out a Redis outage instead of failing (the outbox relay bounds the wait).
    const redis = new Redis(this.config.redis.url, { maxRetriesPerRequest: null, enableReadyCheck: false, connectionName: 'queues' });
    this.all.push(redis);
    return redis;
  }
}
