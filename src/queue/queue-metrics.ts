import { Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { ALL_QUEUES } from './queue-names.js';

/** Job outcomes and durations by queue and job name, and queue depth read at scrape time. */
@Injectable()
export class QueueMetrics {
  private readonly outcomes: Counter<'queue' | 'job' | 'outcome'>;
  private readonly duration: Histogram<'queue' | 'job'>;

  constructor(registry: Registry, moduleRef: ModuleRef) {
    this.outcomes = new Counter({
      name: 'queue_jobs_total',
      help: 'Jobs processed by queue, job name and outcome',
      labelNames: ['queue', 'job', 'outcome'],
      registers: [registry],
    });
    this.duration = new Histogram({
      name: 'queue_job_duration_seconds',
      help: 'Job processing time',
      labelNames: ['queue', 'job'],
      registers: [registry],
    });
    new Gauge({
      name: 'queue_depth',
      help: 'Jobs per queue and state',
      labelNames: ['queue', 'state'],
      registers: [registry],
      async collect() {
        for (const name of ALL_QUEUES) {
          const queue = moduleRef.get<Queue>(getQueueToken(name), { strict: false });
          const counts = await queue.getJobCounts().catch(() => undefined);
          for (const [state, count] of Object.entries(counts ?? {})) this.set({ queue: name, state }, count as number);
        }
      },
    });
  }

  async track<T>(queue: string, job: string, run: () => Promise<T>): Promise<T> {
    const end = this.duration.startTimer({ queue, job });
    try {
      const result = await run();
      this.outcomes.inc({ queue, job, outcome: 'completed' });
      return result;
    } catch (err) {
      this.outcomes.inc({ queue, job, outcome: 'failed' });
      throw err;
    } finally {
      end();
    }
  }
}
