import type { Job } from 'bull';
import type { CloudWebhookNotification } from '../whatsapp/inbound/cloud-webhook.js';
import type { InboundMessage, MediaKind } from '../whatsapp/inbound/inbound-message.js';
import type { WhatsAppMessageWebhookPayload } from '../whatsapp/message-webhook.js';
import type { FinalSendOutcome } from '../whatsapp/providers/whatsapp-provider.js';
import { JobName } from './queue-names.js';

/**
 * What each job carries: a persistent contract like the job names, since jobs already in Redis or
 * in the outbox carry these shapes. Change a shape only in a way the running version still reads.
 */
export interface JobPayloads {
  [JobName.PurgeExpiredIdempotencyKeys]: MaintenancePayload;
  /**
   * `endpointId` (deliveries to an endpoint) lets the worker apply the endpoint's throttle and
   * in-flight cap before touching the row (a `slotAt` that jobs of an earlier version carry is ignored).
   * `checkBack` marks the job left behind by an attempt that waits in a worker's endpoint lane: it
   * does nothing when the attempt was made meanwhile.
   */
  [JobName.DeliverWebhook]: { deliveryId: string; attempt: number; endpointId?: string; checkBack?: boolean };
  /**
   * With `media`, the message goes by an uploaded file: the worker puts the provider's id of it in the request.
   * `providerOutcome` is the provider's answer to an earlier attempt that could not record it (the database
   * was out of reach): the retry records it instead of sending the message again.
   */
  [JobName.SendWhatsAppMessage]: {
    eventId: string;
    channelId: string;
    request: Record<string, unknown>;
    media?: { fileId: string };
    providerOutcome?: FinalSendOutcome;
    /**
     * The attempt (Bull's `attemptsMade`) that asked the provider. A run of that same attempt finding
     * it follows a run whose worker died mid-call: a stalled job runs again with the same count, a
     * failed attempt's retry with a higher one (see SendDelivery.askInTurn).
     */
    sending?: number;
    /**
     * The message was recorded Scheduled (`sendAt`, quiet hours): its run reads the status first,
     * to move it to Pending or find it cancelled. Other runs read the status with their claim (see
     * SendDelivery.deliver).
     */
    scheduled?: true;
  };
  [JobName.MarkWhatsAppMessageRead]: { channelId: string; request: Record<string, unknown> };
  [JobName.ReceiveWhatsAppMessage]: { channelId: string; message: InboundMessage };
  [JobName.ProcessWhatsAppWebhook]: { channelId: string; notification: CloudWebhookNotification };
  [JobName.DownloadWhatsAppMedia]: DownloadMediaPayload;
  /**
   * `userNumber`: the user's number, or their BSUID when they share none (as the permission is kept);
   * `expiresAt` (a temporary grant's end) and `at` (when the user answered) are ISO timestamps.
   */
  [JobName.ApplyCallPermissionReply]: {
    channelId: string;
    userNumber: string;
    granted: boolean;
    permanent: boolean;
    expiresAt: string | null;
    at: string;
  };
  [JobName.PlaceIvrCall]: { requestId: string };
  [JobName.HangUpIvrCall]: { requestId: string };
  [JobName.RequestCallPermission]: { requestId: string };
  [JobName.EndCallPermissionWait]: { requestId: string };
  [JobName.CallPermissionRequestUnsent]: { requestId: string; reason: string };
  [JobName.DownloadCallRecording]: { requestId: string; recordingSid: string };
  [JobName.AnalyseCall]: { requestId: string };
  [JobName.SendWaitingCallWebhook]: { requestId: string };
  [JobName.SweepStaleIvrCalls]: MaintenancePayload;
  [JobName.PruneOldRows]: MaintenancePayload;
  /** `after`: the last recipient (contact id) the previous job claimed, where this one goes on from. */
  [JobName.DispatchCampaign]: { campaignId: string; after?: string };
}

/**
 * An inbound message whose file is still at the provider: its event (recorded already), the file
 * as the notification described it, and the message's webhook, sent once the file is settled.
 */
export interface DownloadMediaPayload {
  eventId: string;
  channelId: string;
  media: { providerMediaId: string; kind: MediaKind; mimeType: string | null; sha256: string | null; fileName: string | null };
  webhook: WhatsAppMessageWebhookPayload;
}

/** Maintenance jobs carry no data; `reason` (why it was queued) shows in the queue dashboard. */
export interface MaintenancePayload {
  reason?: string;
}

/** What the relay adds to every payload when it pushes the job to Bull (maintenance jobs, which read no workspace, get null). */
export interface JobEnvelope {
  outboxId?: string;
  workspaceId: string;
}

/** A Bull job of `name`, as its handler receives it. */
export type JobOf<N extends JobName> = Job<JobPayloads[N] & JobEnvelope>;

/** A job a workspace's change writes to the outbox; the payload's type follows the job name. */
export type OutboxEntry<N extends JobName = JobName> = N extends JobName
  ? { jobName: N; payload: JobPayloads[N]; workspaceId?: string | null; runAt?: Date | null }
  : never;
