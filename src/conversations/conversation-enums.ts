/** Conversation and timeline enums (persisted as smallint: values never change). */

export enum ConversationStatus {
  Open = 1,
  Closed = 2,
}

export enum EventSourceType {
  Call = 1,
  WhatsApp = 2,
  Assignation = 3,
}

export enum EventDirection {
  Inbound = 1,
  Outbound = 2,
  Internal = 3,
}
