import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { AppConfig } from '../../config/app-config.js';
import type { CallSignal } from './call-signals.js';

/**
 * Carries Meta's call signals from the webhook edge (any API replica) to the worker running the
 * call, over Redis pub/sub, one channel per business number: the SDP answer and ACCEPTED must
 * reach the media at once (the first prompt packet is due 500 ms after ACCEPTED), so they skip the
 * intake table. A worker subscribes to the number before it asks Meta to connect (the call id is
 * only known from Meta's answer, and pub/sub keeps nothing for late listeners).
 */
@Injectable()
export class CallSignalBus implements OnApplicationShutdown {
  private readonly prefix: string;
  private publisher: Redis | undefined;
  private subscriber: Redis | undefined;
  private readonly listeners = new Map<string, Set<(signal: CallSignal) => void>>();

  constructor(private readonly config: AppConfig) {
    this.prefix = `${config.redis.keyPrefix}:whatsapp-call:`;
  }

  async publish(signal: CallSignal): Promise<void> {
    this.publisher ??= this.connect('whatsapp-call-signals');
    await this.publisher.publish(this.prefix + signal.phoneNumberId, JSON.stringify(signal));
  }

  /** Calls `listener` with every call signal of the number until the returned function is called. */
  async subscribe(phoneNumberId: string, listener: (signal: CallSignal) => void): Promise<() => Promise<void>> {
    if (!this.subscriber) {
      this.subscriber = this.connect('whatsapp-call-signals-subscriber');
      this.subscriber.on('message', (channel: string, message: string) => {
        const signal = JSON.parse(message) as CallSignal;
        this.listeners.get(channel.slice(this.prefix.length))?.forEach((listen) => listen(signal));
      });
    }
    let listeners = this.listeners.get(phoneNumberId);
    if (!listeners) {
      listeners = new Set();
      this.listeners.set(phoneNumberId, listeners);
      await this.subscriber.subscribe(this.prefix + phoneNumberId);
    }
    listeners.add(listener);
    return async () => {
      listeners.delete(listener);
      if (listeners.size > 0 || this.listeners.get(phoneNumberId) !== listeners) return;
      this.listeners.delete(phoneNumberId);
      await this.subscriber?.unsubscribe(this.prefix + phoneNumberId);
    };
  }

  onApplicationShutdown(): void {
    this.publisher?.disconnect();
    this.subscriber?.disconnect();
  }

  private connect(name: string): Redis {
    const redis = new Redis(this.config.redis.url, { connectionName: name, maxRetriesPerRequest: 2 });
    redis.on('error', () => undefined);
    return redis;
  }
}
