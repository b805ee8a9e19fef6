import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { OutboxRelay } from './outbox.relay.js';
import { ALL_QUEUES } from './queue-names.js';
import { QueueRedisConnections } from './redis-connection.js';

/**
 * Graceful stop: the relay finishes its round, the queues stop taking jobs and wait for the
 * active ones (Bull's close), and only then are the shared Redis connections closed.
 */
@Injectable()
export class QueueLifecycle implements OnApplicationShutdown {
  constructor(
    private readonly moduleRef: ModuleRef,
    private readonly relay: OutboxRelay,
    private readonly connections: QueueRedisConnections,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.relay.stop();
    await Promise.all(ALL_QUEUES.map((name) => this.moduleRef.get<Queue>(getQueueToken(name), { strict: false }).close()));
    await this.connections.closeAll();
  }
}
