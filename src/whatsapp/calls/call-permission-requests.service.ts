import { Injectable, Logger } from '@nestjs/common';
import { ChannelsService } from '../../channels/channels.service.js';
import { DomainError } from '../../common/errors/domain-error.js';
import type { JobOf } from '../../queue/job-payloads.js';
import { JobHandler } from '../../queue/job-handler.decorator.js';
import { JobName } from '../../queue/queue-names.js';
import { OutboundIvrService } from '../../outbound-ivr/outbound-ivr.service.js';
import type { OutboundIvrRequestEntity } from '../../outbound-ivr/outbound-ivr-request.entity.js';
import { SendAcceptance } from '../outbound/send-acceptance.service.js';

const DEFAULT_TEXT = 'We would like to call you on WhatsApp. May we?';

/**
 * Sends the call permission request a waiting WhatsApp call needs (API.md §15), as an ordinary
 * send of the channel (it is in the contact's timeline, with its statuses): inside the 24 h service
 * window Meta's interactive `call_permission_request`; outside it the request's `permissionTemplate`
 * (else the channel's, in its calling settings), an approved template with a call permission button. With neither possible the call ends Failed,
 * NoPermission, saying why.
 */
@Injectable()
export class CallPermissionRequests {
  private readonly logger = new Logger(CallPermissionRequests.name);

  constructor(
    private readonly ivr: OutboundIvrService,
    private readonly sends: SendAcceptance,
    private readonly channels: ChannelsService,
  ) {}

  @JobHandler(JobName.RequestCallPermission, { concurrency: 16 })
  async run(job: JobOf<JobName.RequestCallPermission>): Promise<void> {
    const call = await this.ivr.get(job.data.workspaceId, job.data.requestId).catch(() => null);
    if (!call) return;
    // Sent for the calls that joined it even when the call that asked no longer waits (cancelled meanwhile);
    // with none waiting (answered, cancelled or ended) it is not sent, and not counted.
    if (!call.awaitingPermission && !(await this.ivr.hasWaitingForPermission(call.workspaceId, call.channelId, call.destinationNumber)))
      return this.ivr.permissionRequestUnsent(call.workspaceId, call.id, 'No call waits for the call permission request any more.');
    const principal = { serviceAccountId: '', workspaceId: call.workspaceId, scopes: [], name: 'Outbound IVR' };
    try {
      await this.sends.sendFreeForm(principal, call.channelId, { toNumber: call.destinationNumber }, permissionRequest(call));
    } catch (err) {
      if (!(err instanceof DomainError && err.code === 'WhatsApp:ServiceWindowExpired')) return this.cannotAsk(call, err);
      // The request's own template, else the channel's (its calling settings).
      const channel = await this.channels.getRecent(call.workspaceId, call.channelId).catch(() => null);
      const template = call.permissionTemplate ?? channel?.whatsAppCalling?.permissionTemplate ?? null;
      if (!template)
        return this.cannotAsk(
          call,
          new Error(
            "the 24 h service window is closed, and neither the request nor the channel's calling settings give a permissionTemplate to send instead",
          ),
        );
      const { name, language } = template;
      await this.sends
        .sendTemplate(
          principal,
          { channelId: call.channelId, toNumber: call.destinationNumber, templateName: name, language, parameters: [] },
          undefined,
          requestAttachment(call),
        )
        .catch((templateErr: unknown) => this.cannotAsk(call, templateErr));
    }
  }

  /**
   * Meta refused a permission request for good once it was accepted (the send's outcome): it is
   * given back to the limits on asking, and the calls waiting for it end (API.md §15).
   */
  @JobHandler(JobName.CallPermissionRequestUnsent, { concurrency: 16 })
  unsent(job: JobOf<JobName.CallPermissionRequestUnsent>): Promise<void> {
    const why = `The call permission request could not be sent: ${job.data.reason}`;
    return this.ivr.permissionRequestUnsent(job.data.workspaceId, job.data.requestId, why);
  }

  /** Refused when it was to be accepted: nothing was sent, so nothing counts; the calls waiting for it end. */
  private async cannotAsk(call: OutboundIvrRequestEntity, err: unknown): Promise<void> {
    const why = (err as Error).message;
    this.logger.warn(`Outbound IVR ${call.id}: no call permission request could be sent: ${why}`);
    await this.ivr.permissionRequestUnsent(call.workspaceId, call.id, `No call permission request could be sent: ${why}`);
  }
}

/**
 * What marks the request message in its timeline event: the send's outcome tells the call that
 * asked when Meta refuses it (see StatusService's permission requests).
 */
function requestAttachment(call: OutboundIvrRequestEntity) {
  return { callPermissionRequest: true, outboundIvrRequestId: call.id };
}

function permissionRequest(call: OutboundIvrRequestEntity) {
  return {
    request: {
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: call.destinationNumber.replace(/^\+/, ''),
      type: 'interactive',
      interactive: {
        type: 'call_permission_request',
        action: { name: 'call_permission_request' },
        body: { text: call.permissionRequestText ?? DEFAULT_TEXT },
      },
    },
    preview: call.permissionRequestText ?? DEFAULT_TEXT,
    messageType: 'Interactive' as const,
    attachment: requestAttachment(call),
  };
}
