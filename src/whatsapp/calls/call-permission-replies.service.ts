import { Injectable } from '@nestjs/common';
import { WhatsAppCallPermissions } from '../../contacts/whatsapp-call-permissions.service.js';
import { OutboundIvrService } from '../../outbound-ivr/outbound-ivr.service.js';
import type { JobOf } from '../../queue/job-payloads.js';
import { JobHandler } from '../../queue/job-handler.decorator.js';
import { JobName } from '../../queue/queue-names.js';

/**
 * A WhatsApp user's answer to a number's call permission request (API.md §15): kept as their
 * permission for that number, and the calls that waited for it are placed or end PermissionDenied.
 * Applied by a job the inbound message's transaction queues, after that message is recorded; a
 * job run again (a worker lost) changes nothing more: the answer is recorded already and the
 * calls it moved wait no more.
 */
@Injectable()
export class CallPermissionReplies {
  constructor(
    private readonly permissions: WhatsAppCallPermissions,
    private readonly ivr: OutboundIvrService,
  ) {}

  @JobHandler(JobName.ApplyCallPermissionReply, { concurrency: 16 })
  apply(job: JobOf<JobName.ApplyCallPermissionReply>): Promise<void> {
    const { workspaceId, channelId, userNumber, granted, permanent, expiresAt, at } = job.data;
    return this.received(
      workspaceId,
      channelId,
      userNumber,
      { granted, permanent, expiresAt: expiresAt ? new Date(expiresAt) : null },
      new Date(at),
    );
  }

  async received(
    workspaceId: string,
    channelId: string,
    userNumber: string,
    reply: { granted: boolean; permanent: boolean; expiresAt: Date | null },
    at: Date,
  ): Promise<void> {
    // A late or repeated reply (a newer answer is recorded) changes no waiting call either.
    if (await this.permissions.answer(workspaceId, channelId, userNumber, { ...reply, at }))
      await this.ivr.permissionAnswered(workspaceId, channelId, userNumber, reply.granted);
  }
}
