import { randomUUID } from 'node:crypto';
import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import Redis from 'ioredis';
import { AppConfig } from '../../config/app-config.js';

const PUBLISH_FAILURE_LOG_INTERVAL_MS = 30_000;

/** What a process announces (on its topic's channel) when it changes something other processes may hold in memory. */
interface Invalidation {
  origin: string;
  key: string;
}

/**
 * Tells every process of the deployment (API replicas and workers) to drop an entry of an in-memory
 * cache the moment one of them changes the record behind it, over Redis pub/sub. Each cache keeps a
 * short TTL as the safety net: a message lost while Redis is away only delays the change by that TTL.
 * Each topic has a channel of its own, so a process hears only the topics it registered (the API
 * does not hear the intake's wakes, which only workers act on).
 */
@Injectable()
export class SharedInvalidation implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(SharedInvalidation.name);
  private readonly origin = randomUUID();
  private readonly channelPrefix: string;
  private readonly handlers = new Map<string, (key: string) => void>();
  private subscribing = false;
  /** When a failed publish of each topic was last logged: some topics are announced on every write, and an outage must not flood the log. */
  private readonly publishFailureLoggedAt = new Map<string, number>();
  private readonly publisher: Redis;
  private readonly subscriber: Redis;

  constructor(config: AppConfig) {
    this.channelPrefix = `${config.redis.keyPrefix}:cache-invalidation:`;
    // One retry, then the publish is given up (and logged): a request never waits on Redis for this.
    this.publisher = new Redis(config.redis.url, { maxRetriesPerRequest: 1, lazyConnect: true, connectionName: 'cache-invalidation' });
    this.subscriber = new Redis(config.redis.url, { lazyConnect: true, connectionName: 'cache-invalidation-subscriber' });
    for (const redis of [this.publisher, this.subscriber]) redis.on('error', () => undefined);
    this.subscriber.on('message', (channel: string, message: string) => this.receive(channel, message));
  }

  onModuleInit(): void {
    this.subscribing = true;
    this.subscribe([...this.handlers.keys()]);
  }

  onApplicationShutdown(): void {
    this.publisher.disconnect();
    this.subscriber.disconnect();
  }

  /** Registers what dropping a key of `topic` means in this process (one handler per topic). */
  on(topic: string, drop: (key: string) => void): void {
    if (this.handlers.has(topic)) throw new Error(`Cache invalidation topic ${topic} registered twice`);
    this.handlers.set(topic, drop);
    if (this.subscribing) this.subscribe([topic]);
  }

  /** Drops the key here at once, and in every other process as soon as Redis carries the message. */
  invalidate(topic: string, key: string): void {
    this.handlers.get(topic)?.(key);
    const message: Invalidation = { origin: this.origin, key };
    this.publisher.publish(this.channelPrefix + topic, JSON.stringify(message)).catch((err: Error) => {
      const now = Date.now();
      if ((this.publishFailureLoggedAt.get(topic) ?? -Infinity) > now - PUBLISH_FAILURE_LOG_INTERVAL_MS) return;
      this.publishFailureLoggedAt.set(topic, now);
      this.logger.warn(`Other processes learn of changes to ${topic} only by their own timers until Redis answers: ${err.message}`);
    });
  }

  private subscribe(topics: string[]): void {
    if (topics.length === 0) return;
    // Not awaited: a Redis that is down must not hold the boot (the TTLs cover until it is back), and
    // ioredis subscribes again by itself after a reconnection.
    this.subscriber.subscribe(...topics.map((topic) => this.channelPrefix + topic)).catch((err: Error) => {
      this.logger.warn(`Cache invalidation from other processes unavailable until Redis answers: ${err.message}`);
    });
  }

  private receive(channel: string, raw: string): void {
    if (!channel.startsWith(this.channelPrefix)) return;
    let message: Invalidation;
    try {
      message = JSON.parse(raw) as Invalidation;
    } catch {
      return;
    }
    if (message.origin === this.origin) return;
    this.handlers.get(channel.slice(this.channelPrefix.length))?.(message.key);
  }
}
