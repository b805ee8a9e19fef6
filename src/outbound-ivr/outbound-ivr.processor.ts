import { Injectable } from '@nestjs/common';
import type { JobOf } from '../queue/job-payloads.js';
import { JobHandler } from '../queue/job-handler.decorator.js';
import { JobName } from '../queue/queue-names.js';
import { isLastAttempt } from '../queue/retry-later.js';
import { CallPlacer } from './call-placer.service.js';
import { CallTracker } from './call-tracker.service.js';
import { OutboundIvrService } from './outbound-ivr.service.js';
import { CallAnalyses } from './recording/call-analyses.service.js';
import { CallRecordings } from './recording/call-recordings.service.js';

@Injectable()
export class OutboundIvrProcessor {
  constructor(
    private readonly placer: CallPlacer,
    private readonly recordings: CallRecordings,
    private readonly tracker: CallTracker,
    private readonly analyses: CallAnalyses,
    private readonly ivr: OutboundIvrService,
  ) {}

  /** High concurrency: a sandbox call is followed inside its job, mostly waiting. */
  @JobHandler(JobName.PlaceIvrCall, { concurrency: 256 })
  place(job: JobOf<JobName.PlaceIvrCall>): Promise<void> {
    return this.placer.place({ id: job.data.requestId, workspaceId: job.data.workspaceId }, isLastAttempt(job));
  }

  /** The wait for a WhatsApp user's call permission is over: a call still waiting ends Failed, NoPermission. */
  @JobHandler(JobName.EndCallPermissionWait, { concurrency: 16 })
  endPermissionWait(job: JobOf<JobName.EndCallPermissionWait>): Promise<void> {
    return this.ivr.endPermissionWait(
      job.data.workspaceId,
      job.data.requestId,
      'The WhatsApp user did not answer the call permission request in time.',
    );
  }

  @JobHandler(JobName.HangUpIvrCall, { concurrency: 16 })
  hangUp(job: JobOf<JobName.HangUpIvrCall>): Promise<void> {
    return this.placer.hangUp({ id: job.data.requestId, workspaceId: job.data.workspaceId });
  }

  @JobHandler(JobName.DownloadCallRecording, { concurrency: 8 })
  downloadRecording(job: JobOf<JobName.DownloadCallRecording>): Promise<void> {
    const ref = { id: job.data.requestId, workspaceId: job.data.workspaceId };
    return this.recordings.fetchFromTwilio(ref, job.data.recordingSid, isLastAttempt(job));
  }

  /** Two at a time per worker (a queue of their own): each holds a recording in memory and waits on a provider. */
  @JobHandler(JobName.AnalyseCall, { concurrency: 2 })
  analyse(job: JobOf<JobName.AnalyseCall>): Promise<void> {
    const ref = { id: job.data.requestId, workspaceId: job.data.workspaceId };
    return this.analyses.analyse(ref, isLastAttempt(job), { queuedAt: job.timestamp, busy: () => this.placer.placing > 0 });
  }

  @JobHandler(JobName.SendWaitingCallWebhook, { concurrency: 16 })
  sendWaitingCallWebhook(job: JobOf<JobName.SendWaitingCallWebhook>): Promise<void> {
    return this.tracker.sendWaitingCallWebhook({ id: job.data.requestId, workspaceId: job.data.workspaceId });
  }
}
