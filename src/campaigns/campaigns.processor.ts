import { Injectable } from '@nestjs/common';
import type { JobOf } from '../queue/job-payloads.js';
import { JobHandler } from '../queue/job-handler.decorator.js';
import { JobName } from '../queue/queue-names.js';
import { CampaignDispatcher } from './campaign-dispatcher.service.js';

@Injectable()
export class CampaignsProcessor {
  constructor(private readonly dispatcher: CampaignDispatcher) {}

  /** A failure (the database) leaves the claimed recipients Pending again; Bull retries the job. */
  @JobHandler(JobName.DispatchCampaign, { concurrency: 4 })
  dispatch(job: JobOf<JobName.DispatchCampaign>): Promise<void> {
    return this.dispatcher.dispatch(job.data.workspaceId, job.data.campaignId, job.data.after ?? null);
  }
}
