import { randomUUID } from 'node:crypto';
import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import Redis from 'ioredis';
import { AppConfig } from '../../config/app-config.js';

/** What a process announces when it changes something other processes may hold in memory. */
interface Invalidation {
  origin: string;
  topic: string;
  key: string;
}

/**
 * Tells every process of the deployment (API replicas and workers) to drop an entry of an in-memory
 * cache the moment one of them changes the record behind it, over Redis pub/sub. Each cache keeps a
 * short TTL as the safety net: a message lost while Redis is away only delays the change by that TTL.
 */
@Injectable()
export class SharedInvalidation implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(SharedInvalidation.name);
  private readonly origin = randomUUID();
  private readonly channel: string;
  private readonly handlers = new Map<string, (key: string) => void>();
  private readonly publisher: Redis;
  private readonly subscriber: Redis;

  constructor(config: AppConfig) {
    this.channel = `${config.redis.keyPrefix}:cache-invalidation`;
    // One retry, then the publish is given up (and logged): a request never waits on Redis for this.
    this.publisher = new Redis(config.redis.url, { maxRetriesPerRequest: 1, lazyConnect: true, connectionName: 'cache-invalidation' });
    this.subscriber = new Redis(config.redis.url, { lazyConnect: true, connectionName: 'cache-invalidation-subscriber' });
    for (const redis of [this.publisher, this.subscriber]) redis.on('error', () => undefined);
    this.subscriber.on('message', (channel: string, message: string) => this.receive(channel, message));
  }

  onModuleInit(): void {
    // Not awaited: a Redis that is down must not hold the boot (the TTLs cover until it is back), and
    // ioredis subscribes again by itself after a reconnection.
    this.subscriber.subscribe(this.channel).catch((err: Error) => {
      this.logger.warn(`Cache invalidation from other processes unavailable until Redis answers: ${err.message}`);
    });
  }

  onApplicationShutdown(): void {
    this.publisher.disconnect();
    this.subscriber.disconnect();
  }

  /** Registers what dropping a key of `topic` means in this process (one handler per topic). */
  on(topic: string, drop: (key: string) => void): void {
    if (this.handlers.has(topic)) throw new Error(`Cache invalidation topic ${topic} registered twice`);
    this.handlers.set(topic, drop);
  }

  /** Drops the key here at once, and in every other process as soon as Redis carries the message. */
  invalidate(topic: string, key: string): void {
    this.handlers.get(topic)?.(key);
    const message: Invalidation = { origin: this.origin, topic, key };
    this.publisher.publish(this.channel, JSON.stringify(message)).catch((err: Error) => {
      this.logger.warn(`Other processes will see the change to ${topic} ${key} within its cache TTL: ${err.message}`);
    });
  }

  private receive(channel: string, raw: string): void {
    if (channel !== this.channel) return;
    let message: Invalidation;
    try {
      message = JSON.parse(raw) as Invalidation;
    } catch {
      return;
    }
    if (message.origin === this.origin) return;
    this.handlers.get(message.topic)?.(message.key);
  }
}
