import { Injectable } from '@nestjs/common';
import type { JobOf } from '../queue/job-payloads.js';
import { JobHandler } from '../queue/job-handler.decorator.js';
import { JobName } from '../queue/queue-names.js';
import { WebhookDeliveryService } from './webhook-delivery.service.js';

@Injectable()
export class WebhooksProcessor {
  constructor(private readonly deliveries: WebhookDeliveryService) {}

  /** An attempt is mostly waiting (its claim, the receiver, its record): more at once make larger statement batches. */
  @JobHandler(JobName.DeliverWebhook, { concurrency: 128 })
  deliver(job: JobOf<JobName.DeliverWebhook>): Promise<void> {
    return this.deliveries.attempt(job.data);
  }
}
