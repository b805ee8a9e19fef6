import { Injectable } from '@nestjs/common';
import type { JobOf } from '../queue/job-payloads.js';
import { JobHandler } from '../queue/job-handler.decorator.js';
import { JobName } from '../queue/queue-names.js';
import { isLastAttempt } from '../queue/retry-later.js';
import { Slots } from '../common/batching/slots.js';
import { SendDelivery } from './outbound/send-delivery.service.js';
import { InboundService } from './inbound/inbound.service.js';
import { InboundMediaService } from './inbound/inbound-media.service.js';
import { WhatsAppIntake } from './inbound/whatsapp-intake.service.js';

/** Sends one worker has under way at the provider at most (from the job's mark to its recorded outcome). */
const SENDS_AT_ONCE = 32;

@Injectable()
export class WhatsAppProcessor {
  /**
   * The provider calls under way, held to {@link SENDS_AT_ONCE}: Bull adds up the concurrency of
   * every job type of a queue, so more send jobs than that can be active at once (most of them
   * waiting for the governor); only this many are ever marked as asking the provider.
   */
  private readonly providerCalls = new Slots(SENDS_AT_ONCE);

  constructor(
    private readonly delivery: SendDelivery,
    private readonly inbound: InboundService,
    private readonly media: InboundMediaService,
    private readonly intake: WhatsAppIntake,
  ) {}

  /**
   * Passing provider failures are retried with backoff (honouring Retry-After); permanent ones, and the last attempt, end Failed.
   * The provider's answer is kept in the job when it cannot be recorded, so the retry records it without sending twice;
   * the job is marked while the provider is being asked, so a run after a worker died mid-call does not ask again.
   */
  @JobHandler(JobName.SendWhatsAppMessage, { concurrency: SENDS_AT_ONCE })
  async send(job: JobOf<JobName.SendWhatsAppMessage>): Promise<void> {
    const { workspaceId, eventId, channelId, request, media, providerOutcome, sending, scheduled } = job.data;
    let giveBack: (() => void) | undefined;
    try {
      await this.delivery.deliver(workspaceId, eventId, channelId, request, {
        lastAttempt: isLastAttempt(job),
        scheduled: scheduled === true,
        run: `${job.id}:${job.timestamp}:${job.attemptsMade}`,
        media,
        earlierOutcome: providerOutcome,
        interrupted: sending === job.attemptsMade,
        keepOutcome: (outcome) => job.update({ ...job.data, providerOutcome: outcome }),
        markSending: async () => {
          giveBack = await this.providerCalls.take();
          return job.update({ ...job.data, sending: job.attemptsMade });
        },
      });
    } finally {
      giveBack?.();
    }
  }

  @JobHandler(JobName.MarkWhatsAppMessageRead, { concurrency: 16 })
  markRead(job: JobOf<JobName.MarkWhatsAppMessageRead>): Promise<void> {
    return this.delivery.markRead(job.data.workspaceId, job.data.channelId, job.data.request, isLastAttempt(job));
  }

  /** Notifications queued as jobs by an earlier version (the edge now writes them to the intake, {@link WhatsAppIntake}). */
  @JobHandler(JobName.ProcessWhatsAppWebhook, { concurrency: 16 })
  webhook(job: JobOf<JobName.ProcessWhatsAppWebhook>): Promise<void> {
    return this.intake.process(job.data.workspaceId, job.data.channelId, job.data.notification);
  }

  /** Fetches an inbound message's file; passing failures are retried, the last attempt sends the webhook without the file. */
  @JobHandler(JobName.DownloadWhatsAppMedia, { concurrency: 16 })
  downloadMedia(job: JobOf<JobName.DownloadWhatsAppMedia>): Promise<void> {
    return this.media.download(job.data.workspaceId, job.data, isLastAttempt(job));
  }

  @JobHandler(JobName.ReceiveWhatsAppMessage, { concurrency: 16 })
  receive(job: JobOf<JobName.ReceiveWhatsAppMessage>): Promise<void> {
    return this.inbound.receive(job.data.workspaceId, job.data.channelId, job.data.message);
  }
}
