/**
 * Queue and job names are a persistent contract: jobs already in Redis carry them, so a name
 * is never renamed or reused for something else. Every job name belongs to exactly one queue.
 */
export enum QueueName {
  Maintenance = 'maintenance',
  Webhooks = 'webhooks',
  WhatsApp = 'whatsapp',
  OutboundIvr = 'outbound-ivr',
  Campaigns = 'campaigns',
  /** Recordings' analyses: slow, paid, never urgent; a queue of their own so that a few run at a time, beside the calls. */
  CallAnalysis = 'call-analysis',
}

export enum JobName {
  PurgeExpiredIdempotencyKeys = 'maintenance.purge-expired-idempotency-keys',
  /** One attempt to deliver one webhook event: `{ deliveryId, attempt }`. */
  DeliverWebhook = 'webhooks.deliver',
  /** Sends one outbound WhatsApp message: `{ eventId, channelId, request, media? }`. */
  SendWhatsAppMessage = 'whatsapp.send',
  /** Marks one inbound WhatsApp message read at the provider: `{ channelId, request }`. */
  MarkWhatsAppMessageRead = 'whatsapp.mark-read',
  /** Processes one inbound WhatsApp message: `{ channelId, message }`. */
  ReceiveWhatsAppMessage = 'whatsapp.receive',
  /** Processes one Cloud API webhook notification (messages and statuses): `{ channelId, notification }`. */
  ProcessWhatsAppWebhook = 'whatsapp.webhook',
  /**
   * Applies a WhatsApp user's answer to a call permission request once the message carrying it is
   * recorded (API.md §15): `{ channelId, userNumber, granted, permanent, expiresAt, at }`.
   */
  ApplyCallPermissionReply = 'whatsapp.call-permission-reply',
  /** Fetches an inbound message's file from the Graph API, stores it, then sends the message's webhook: `{ eventId, channelId, media, webhook }`. */
  DownloadWhatsAppMedia = 'whatsapp.download-media',
  /** Prepares and places one outbound IVR call, and follows a sandbox call to its end: `{ requestId }`. */
  PlaceIvrCall = 'outbound-ivr.place',
  /** Sends a WhatsApp user the call permission request a waiting call needs (API.md §15): `{ requestId }`. */
  RequestCallPermission = 'outbound-ivr.request-call-permission',
  /** Ends a call still waiting for the user's call permission at its deadline: `{ requestId }`. */
  EndCallPermissionWait = 'outbound-ivr.end-call-permission-wait',
  /**
   * The call permission request a call asked for failed for good once accepted (Meta refused it):
   * it is given back to Meta's limits and the calls waiting for it end: `{ requestId, reason }`.
   */
  CallPermissionRequestUnsent = 'outbound-ivr.call-permission-request-unsent',
  /** Hangs up a cancelled call at its voice provider: `{ requestId }`. */
  HangUpIvrCall = 'outbound-ivr.hang-up',
  /** Fetches a call's recording from its voice provider into storage, then deletes it there: `{ requestId, recordingSid }`. */
  DownloadCallRecording = 'outbound-ivr.download-recording',
  /** Transcribes and summarises a call's stored recording with the workspace's providers (API.md §16): `{ requestId }`. */
  AnalyseCall = 'outbound-ivr.analyse-call',
  /** Sends a recorded call's Call Webhook that still waits for its recording, once the wait is over: `{ requestId }`. */
  SendWaitingCallWebhook = 'outbound-ivr.send-waiting-call-webhook',
  /** Ends outbound IVR calls whose final report never came (repeatable). */
  SweepStaleIvrCalls = 'maintenance.sweep-stale-ivr-calls',
  /** Deletes rows of the growing tables older than their retention, in bounded batches (repeatable). */
  PruneOldRows = 'maintenance.prune-old-rows',
  /** Sends the next batches of a Running campaign's recipients, then queues its successor: `{ campaignId }`. */
  DispatchCampaign = 'campaigns.dispatch',
}

export const QUEUE_OF_JOB: Record<JobName, QueueName> = {
  [JobName.PurgeExpiredIdempotencyKeys]: QueueName.Maintenance,
  [JobName.DeliverWebhook]: QueueName.Webhooks,
  [JobName.SendWhatsAppMessage]: QueueName.WhatsApp,
  [JobName.MarkWhatsAppMessageRead]: QueueName.WhatsApp,
  [JobName.ReceiveWhatsAppMessage]: QueueName.WhatsApp,
  [JobName.ProcessWhatsAppWebhook]: QueueName.WhatsApp,
  [JobName.DownloadWhatsAppMedia]: QueueName.WhatsApp,
  [JobName.ApplyCallPermissionReply]: QueueName.WhatsApp,
  [JobName.PlaceIvrCall]: QueueName.OutboundIvr,
  [JobName.HangUpIvrCall]: QueueName.OutboundIvr,
  [JobName.RequestCallPermission]: QueueName.OutboundIvr,
  [JobName.EndCallPermissionWait]: QueueName.OutboundIvr,
  [JobName.CallPermissionRequestUnsent]: QueueName.OutboundIvr,
  [JobName.DownloadCallRecording]: QueueName.OutboundIvr,
  [JobName.AnalyseCall]: QueueName.CallAnalysis,
  [JobName.SendWaitingCallWebhook]: QueueName.OutboundIvr,
  [JobName.SweepStaleIvrCalls]: QueueName.Maintenance,
  [JobName.PruneOldRows]: QueueName.Maintenance,
  [JobName.DispatchCampaign]: QueueName.Campaigns,
};

export const ALL_QUEUES: QueueName[] = Object.values(QueueName);

/**
 * The outbox queue on which an earlier version wrote `WebhookEventType` events without
 * delivering them; migration 1795282000000 clears its rows (no endpoint existed to take them).
 */
export const WEBHOOK_EVENTS_QUEUE = 'webhook-events';
