import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
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
  private readonly logger = new Logger(CallSignalBus.name);
  private readonly prefix: string;
  private publisher: Redis | undefined;
  private subscriber: Redis | undefined;
  /** Per number: its listeners, and the SUBSCRIBE every listener waits for (one per number). */
  private readonly numbers = new Map<string, { listeners: Set<(signal: CallSignal) => void>; subscribed: Promise<unknown> }>();

  constructor(private readonly config: AppConfig) {
    this.prefix = `${config.redis.keyPrefix}:whatsapp-call:`;
  }

  async publish(signal: CallSignal): Promise<void> {
    this.publisher ??= this.connect('whatsapp-call-signals');
    await this.publisher.publish(this.prefix + signal.phoneNumberId, JSON.stringify(signal));
  }

  /**
   * Calls `listener` with every call signal of the number until the returned function is called.
   * Resolves once Redis confirmed the subscription, so nothing published afterwards is missed; when
   * Redis refuses it, rejects, and the next call subscribes again.
   */
  async subscribe(phoneNumberId: string, listener: (signal: CallSignal) => void): Promise<() => Promise<void>> {
    const subscriber = this.subscriber ?? this.startSubscriber();
    let number = this.numbers.get(phoneNumberId);
    if (!number) {
      const subscribed = subscriber.subscribe(this.prefix + phoneNumberId);
      const entry = { listeners: new Set<(signal: CallSignal) => void>(), subscribed };
      number = entry;
      this.numbers.set(phoneNumberId, entry);
      subscribed.catch(() => {
        if (this.numbers.get(phoneNumberId) === entry) this.numbers.delete(phoneNumberId);
      });
    }
    const { listeners, subscribed } = number;
    listeners.add(listener);
    try {
      await subscribed;
    } catch (err) {
      listeners.delete(listener);
      throw err;
    }
    return async () => {
      listeners.delete(listener);
      if (listeners.size > 0 || this.numbers.get(phoneNumberId) !== number) return;
      this.numbers.delete(phoneNumberId);
      await this.subscriber?.unsubscribe(this.prefix + phoneNumberId);
    };
  }

  private startSubscriber(): Redis {
    const subscriber = this.connect('whatsapp-call-signals-subscriber');
    subscriber.on('message', (channel: string, message: string) => {
      const listeners = this.numbers.get(channel.slice(this.prefix.length))?.listeners;
      if (!listeners) return;
      // A bad message or a listener's fault is logged here: thrown, it would reach ioredis's emitter and skip the other listeners.
      let signal: CallSignal;
      try {
        signal = JSON.parse(message) as CallSignal;
      } catch {
        return this.logger.warn(`An unreadable WhatsApp call signal on ${channel} was dropped`);
      }
      for (const listen of listeners) {
        try {
          listen(signal);
        } catch (err) {
          this.logger.warn(`A WhatsApp call signal listener failed on call ${signal.callId}: ${(err as Error).message}`);
        }
      }
    });
    this.subscriber = subscriber;
    return subscriber;
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
