// The webhook vocabulary: what the service tells integrators, and under which names. Persisted: never renamed.

/** Kinds of outgoing webhook (the `webhook-event` header), API.md §11. Persisted: never renamed. */
export enum WebhookKind {
  OutboundIvrCompleted = 'outbound_ivr.completed',
  Call = 'call',
  WhatsAppMessage = 'whatsapp.message',
}

export enum WebhookDeliveryStatus {
  Pending = 'Pending',
  Succeeded = 'Succeeded',
  Failed = 'Failed',
}

/**
 * Domain and operational events for a workspace's webhook endpoints (API.md §11.1), by type, besides
 * the three original kinds of {@link WebhookKind}. Each is written in the transaction of its change,
 * as one delivery row (and outbox job) per endpoint that takes it. Persistent: never renamed.
 */
export enum WebhookEventType {
  ContactCreated = 'contact.created',
  ContactUpdated = 'contact.updated',
  ContactDeleted = 'contact.deleted',
  ContactMerged = 'contact.merged',
  ConversationCreated = 'conversation.created',
  ConversationAssigned = 'conversation.assigned',
  ConversationStatusChanged = 'conversation.status_changed',
  ConversationTagsChanged = 'conversation.tags_changed',
  WebhookEndpointDisabled = 'webhook_endpoint.disabled',
  WhatsAppTemplateUpdated = 'whatsapp.template_updated',
  ChannelQualityUpdated = 'channel.quality_updated',
  CallAnalysisCompleted = 'call.analysis_completed',
}
