import { Injectable } from '@nestjs/common';
import type { Job } from 'bull';
import { JobHandler } from '../queue/job-handler.decorator.js';
import { JobName } from '../queue/queue-names.js';
import { CallPlacer } from './call-placer.service.js';

type CallJob = Job<{ workspaceId: string; requestId: string }>;

@Injectable()
export class OutboundIvrProcessor {
  constructor(private readonly placer: CallPlacer) {}

  /** High concurrency: a sandbox call is followed inside its job, mostly waiting. */
  @JobHandler(JobName.PlaceIvrCall, { concurrency: 256 })
  place(job: CallJob): Promise<void> {
    const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    return this.placer.place({ id: job.data.requestId, workspaceId: job.data.workspaceId }, lastAttempt);
  }

  @JobHandler(JobName.HangUpIvrCall, { concurrency: 16 })
  hangUp(job: CallJob): Promise<void> {
    return this.placer.hangUp({ id: job.data.requestId, workspaceId: job.data.workspaceId });
  }
}
