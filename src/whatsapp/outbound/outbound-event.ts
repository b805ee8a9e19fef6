import type { LocationInfo } from '../../conversations/conversation-event.entity.js';
import { EventDirection, EventSourceType } from '../../conversations/conversation-enums.js';
import { TimestampFormat } from '../../common/time/timestamp-format.js';

/**
 * The timeline event an accepted WhatsApp send records: Pending, or Scheduled with its
 * `scheduledFor` when it waits (quiet hours, `sendAt`).
 */
export function outboundEvent(
  handlerName: string | null,
  preview: string,
  attachment: Record<string, unknown>,
  dueAt: Date | null,
  location: LocationInfo | null = null,
) {
  return {
    sourceType: EventSourceType.WhatsApp,
    direction: EventDirection.Outbound,
    status: dueAt ? 'Scheduled' : 'Pending',
    body: preview,
    attachment: dueAt ? { ...attachment, scheduledFor: TimestampFormat.utc(dueAt) } : attachment,
    handlerName,
    location,
  };
}

/** A status move the provider had no part in (scheduling, cancelling). */
export const NO_PROVIDER_OUTCOME = (status: string) => ({ status, providerMessageId: null, errorCode: null, failureReason: null });
