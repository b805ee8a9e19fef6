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
