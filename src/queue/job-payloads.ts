import type { Job } from 'bull';
import type { CloudWebhookNotification } from '../whatsapp/cloud-webhook.js';
import type { InboundMessage } from '../whatsapp/inbound.service.js';
import { JobName } from './queue-names.js';

/**
 * What each job carries: a persistent contract like the job names, since jobs already in Redis or
 * in the outbox carry these shapes. Change a shape only in a way the running version still reads.
 */
export interface JobPayloads {
  [JobName.PurgeExpiredIdempotencyKeys]: MaintenancePayload;
  [JobName.DeliverWebhook]: { deliveryId: string; attempt: number };
  /** With `media`, the message goes by an uploaded file: the worker puts the provider's id of it in the request. */
  [JobName.SendWhatsAppMessage]: { eventId: string; channelId: string; request: Record<string, unknown>; media?: { fileId: string } };
  [JobName.MarkWhatsAppMessageRead]: { channelId: string; request: Record<string, unknown> };
  [JobName.ReceiveWhatsAppMessage]: { channelId: string; message: InboundMessage };
  [JobName.ProcessWhatsAppWebhook]: { channelId: string; notification: CloudWebhookNotification };
  [JobName.PlaceIvrCall]: { requestId: string };
  [JobName.HangUpIvrCall]: { requestId: string };
  [JobName.SweepStaleIvrCalls]: MaintenancePayload;
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
