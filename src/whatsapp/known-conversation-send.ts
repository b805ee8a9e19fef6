import type { EntityManager } from 'typeorm';
import { newId } from '../common/id.js';
import { ConversationStatus, EventDirection, EventSourceType } from '../conversations/conversation.entity.js';
import { OUTBOX_COLUMNS, outboxRows, type OutboxEntry, type OutboxRow } from '../queue/outbox.service.js';

/** Mirrors TimelineService's preview of the conversation's last event. */
const PREVIEW_LENGTH = 200;
/** The customer service window a contact's message opens for free-form sends. */
export const SERVICE_WINDOW_MS = 24 * 3600 * 1000;

export interface KnownConversationSend {
  workspaceId: string;
  channelId: string;
  /** E.164, as contacts store it. */
  phoneNumber: string;
  /** Free-form sends need an inbound WhatsApp message from the contact on the channel in the last 24 h. */
  needsServiceWindow: boolean;
  body: string;
  attachment: Record<string, unknown>;
  handlerName: string | null;
  /** The job, given the event id. */
  job: (eventId: string) => OutboxEntry;
}

/**
 * The usual send, in one statement: when the contact exists, has an open conversation on the
 * channel and (for free-form sends) an open service window, records the Pending outbound event,
 * stamps the conversation's last-event fields as TimelineService.record does, and writes the
 * outbox row (returned, for Outbox.pushCommitted). Writes nothing and returns undefined otherwise: the caller then takes the general
 * path (which creates what is missing, or refuses).
 */
export async function sendInKnownConversation(
  manager: EntityManager,
  send: KnownConversationSend,
): Promise<{ eventId: string; contactId: string; job: OutboxRow } | undefined> {
  const eventId = newId();
  const now = new Date();
  const params: unknown[] = [
    send.workspaceId,
    send.phoneNumber,
    send.channelId,
    eventId,
    now,
    send.body,
    send.attachment,
    send.handlerName,
    send.body.slice(0, PREVIEW_LENGTH),
    send.needsServiceWindow ? new Date(now.getTime() - SERVICE_WINDOW_MS) : null,
  ];
  const job = outboxRows([send.job(eventId)], params.length + 1);
  params.push(...job.params);
  const rows = (await manager.query(
    `WITH target AS (
       SELECT v.id AS conversation_id, v.contact_id
         FROM contacts c
         JOIN conversations v ON v.workspace_id = c.workspace_id AND v.contact_id = c.id AND v.channel_id = $3 AND v.status = ${ConversationStatus.Open}
        WHERE c.workspace_id = $1 AND c.phone_number = $2
          AND ($10::timestamptz IS NULL OR EXISTS (
                SELECT 1 FROM conversation_events w
                 WHERE w.workspace_id = $1 AND w.channel_id = $3 AND w.contact_id = c.id AND w.source_type = ${EventSourceType.WhatsApp}
                   AND w.direction = ${EventDirection.Inbound} AND w.creation_time > $10))
        LIMIT 1
     ), event AS (
       INSERT INTO conversation_events
              (id, workspace_id, conversation_id, contact_id, channel_id, source_type, direction, creation_time, status, body, attachment, handler_name)
       SELECT $4::uuid, $1::uuid, conversation_id, contact_id, $3::uuid, ${EventSourceType.WhatsApp}, ${EventDirection.Outbound}, $5::timestamptz,
              'Pending', $6::text, $7::jsonb, $8::varchar FROM target
       RETURNING conversation_id, contact_id
     ), stamp AS (
       UPDATE conversations v
          SET last_activity_at = $5, last_event_source_type = ${EventSourceType.WhatsApp}, last_event_direction = ${EventDirection.Outbound},
              last_event_status = 'Pending', last_event_preview_body = $9, last_event_occurred_at = $5, last_events_count = v.last_events_count + 1
         FROM event
        WHERE v.id = event.conversation_id AND v.workspace_id = $1
     ), job AS (
       INSERT INTO outbox_messages (${OUTBOX_COLUMNS}) SELECT ${job.placeholders[0]} FROM event
     )
     SELECT contact_id FROM event`,
    params,
  )) as Array<{ contact_id: string }>;
  return rows[0] ? { eventId, contactId: rows[0].contact_id, job: job.rows[0] } : undefined;
}
