import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import type { PagedResult } from '../common/paging/paged-result.js';
import type { PagedRequestDto } from '../common/paging/paged-request.dto.js';
import { EventDirection } from '../conversations/conversation-enums.js';
import { OutboundIvrResult, OutboundIvrStatus } from '../outbound-ivr/ivr-enums.js';
import { WorkspaceScopedRepository } from '../database/workspace-scoped.repository.js';
import { CampaignRecipient, type StoredRecipientStatus } from './campaign-recipient.entity.js';
import type { CampaignRedial } from './campaign.entity.js';
import { CampaignCountsDto, type CampaignRecipientDto, type RecipientStatus } from './dto/campaign.dto.js';

/** A recipient a dispatcher claimed: its number, else (an IVR campaign over WhatsApp) its BSUID. */
export interface ClaimedRecipient {
  contactId: string;
  phoneNumber: string | null;
  whatsAppUserId: string | null;
  /** Calls placed to it so far. */
  attempts: number;
}

/** A recipient's accepted send, for {@link CampaignRecipientsRepository.linkMany}. */
export interface RecipientLink {
  contactId: string;
  eventId: string;
  /** Waiting out quiet hours (the recipient shows Scheduled). */
  scheduled: boolean;
}

/**
 * How a snapshot treats a contact without a number: Pending, to be called by its BSUID (an IVR
 * campaign over WhatsApp), or SkippedNoPhone with `errorCode` saying why (null: no reason given).
 */
export interface WithoutNumber {
  byWhatsAppUserId: boolean;
  errorCode: string | null;
}

/** A recipient ended without a send, for {@link CampaignRecipientsRepository.settleMany}. */
export interface RecipientSettlement {
  contactId: string;
  status: StoredRecipientStatus;
  errorCode: string | null;
}

// UPDATE … RETURNING goes inside a CTE: the driver answers a bare UPDATE with [rows, count], a SELECT with its rows.

/** A finished call's recipient status (API.md §13); a call under way shows Sent (Scheduled while it waits out quiet hours). */
const CALL_STATUS_CASES = [
  [OutboundIvrStatus.Completed, 'Completed'],
  [OutboundIvrStatus.NoAnswer, 'NoAnswer'],
  [OutboundIvrStatus.Busy, 'Busy'],
  [OutboundIvrStatus.Failed, 'Failed'],
  [OutboundIvrStatus.Cancelled, 'Cancelled'],
]
  .map(([status, name]) => `WHEN ${status} THEN '${name}'`)
  .join(' ');
/** Calls not yet ended. */
const CALL_UNDER_WAY = [
  OutboundIvrStatus.Pending,
  OutboundIvrStatus.Initiated,
  OutboundIvrStatus.Ringing,
  OutboundIvrStatus.InProgress,
].join(', ');

/**
 * How long a dispatcher's claim holds: far longer than a batch's sends (each is a few statements;
 * the governor's waits happen later, in the provider job), so only a dead dispatcher's claim lapses.
 */
const LEASE = "interval '30 seconds'";
/** A reply within this long after the send counts (API.md §13). */
const REPLY_WINDOW = "interval '7 days'";

/**
 * The recipients of campaigns `$2` (an array) with the status shown (API.md §13), derived at read
 * time: a recipient linked to its send follows the send's event (Scheduled, Pending, Sent, Delivered,
 * Read, Failed, Cancelled), and is Replied when the contact wrote on the channel within 7 days after a
 * send that left (from the send's second on: an inbound message carries Meta's timestamp, in whole seconds). Computed here so that the status and inbound paths need not know about campaigns.
 */
const DERIVED = `
  SELECT r.campaign_id, r.contact_id, r.phone_number, r.whats_app_user_id, r.conversation_event_id, r.outbound_ivr_id, r.updated_at,
         e.status AS event_status, coalesce(rep.replied, false) AS replied,
         o.status AS call_status, o.answered_at IS NOT NULL AND o.result <> ${OutboundIvrResult.AnsweringMachine} AS answered, o.result = ${OutboundIvrResult.DigitPressed} AS digit_pressed,
         CASE WHEN e.id IS NOT NULL THEN CASE WHEN rep.replied THEN 'Replied' ELSE e.status END
              WHEN o.id IS NOT NULL THEN CASE o.status ${CALL_STATUS_CASES}
                ELSE CASE WHEN o.status = ${OutboundIvrStatus.Pending} AND o.scheduled_for > now() THEN 'Scheduled' ELSE 'Sent' END END
              ELSE r.status END AS status,
         coalesce(r.error_code, e.error_code) AS error_code
    FROM campaign_recipients r
    LEFT JOIN conversation_events e ON e.workspace_id = r.workspace_id AND e.id = r.conversation_event_id
    LEFT JOIN outbound_ivr_requests o ON o.workspace_id = r.workspace_id AND o.id = r.outbound_ivr_id
    LEFT JOIN LATERAL (
      SELECT true AS replied FROM conversation_events i
       WHERE e.status IN ('Sent', 'Delivered', 'Read')
         AND i.workspace_id = e.workspace_id AND i.contact_id = e.contact_id AND i.channel_id = e.channel_id
         AND i.direction = ${EventDirection.Inbound}
         AND i.creation_time >= date_trunc('second', e.creation_time) AND i.creation_time <= e.creation_time + ${REPLY_WINDOW}
       LIMIT 1) rep ON true
   WHERE r.workspace_id = $1 AND r.campaign_id = ANY($2::uuid[])`;

interface DerivedRow {
  campaign_id: string;
  contact_id: string;
  phone_number: string | null;
  whats_app_user_id: string | null;
  conversation_event_id: string | null;
  outbound_ivr_id: string | null;
  updated_at: Date;
  status: RecipientStatus;
  error_code: string | null;
  total_count: string;
}

@Injectable()
export class CampaignRecipientsRepository extends WorkspaceScopedRepository<CampaignRecipient> {
  constructor(@InjectRepository(CampaignRecipient) repository: Repository<CampaignRecipient>) {
    super(repository);
  }

  /**
   * The audience snapshot: one INSERT … SELECT of the contacts `audience` selects (`workspace_id,
   * id, phone_number, whats_app_user_id`, its parameters `$1`…), Pending, or without a number as
   * `withoutNumber` says (Pending to be called by the BSUID, else SkippedNoPhone). Returns how many
   * rows it wrote.
   */
  async snapshot(
    workspaceId: string,
    campaignId: string,
    audience: { sql: string; params: unknown[] },
    withoutNumber: WithoutNumber,
  ): Promise<number> {
    const shifted = audience.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + 4}`);
    const rows = await this.sql<{ n: number }>(
      workspaceId,
      `WITH inserted AS (
         INSERT INTO campaign_recipients (workspace_id, campaign_id, contact_id, phone_number, whats_app_user_id, status, error_code, updated_at)
         SELECT m.workspace_id, $2::uuid, m.id, m.phone_number, m.whats_app_user_id, reach.status,
                CASE WHEN reach.status = 'SkippedNoPhone' THEN $4::varchar END, now()
           FROM (${shifted}) m
          CROSS JOIN LATERAL (
            SELECT CASE WHEN m.phone_number IS NOT NULL OR ($3::boolean AND m.whats_app_user_id IS NOT NULL) THEN 'Pending'
                        ELSE 'SkippedNoPhone' END AS status) reach
          WHERE m.workspace_id = $1
         ON CONFLICT DO NOTHING
         RETURNING 1)
       SELECT count(*)::int AS n FROM inserted`,
      [campaignId, withoutNumber.byWhatsAppUserId, withoutNumber.errorCode, ...audience.params],
    );
    return rows[0].n;
  }

  /**
   * ANALYZE of the recipients table, after a snapshot added many rows. Until the planner knows them
   * (autovacuum's ANALYZE comes a minute or more later, if ever), it takes a new campaign for a
   * handful of rows and claims by sorting every Pending recipient: 55 ms a claim at 100,000. Waits
   * at most a second for the table's maintenance lock (another start's ANALYZE, a VACUUM): when it
   * cannot have it, the statistics are being refreshed already.
   */
  async refreshStatistics(): Promise<void> {
    await this.unscoped("the planner's statistics are the table's, not a workspace's").manager.transaction(async (manager) => {
      await manager.query(`SET LOCAL lock_timeout = '1s'`);
      await manager.query('ANALYZE campaign_recipients');
    });
  }

  /**
   * Claims up to `limit` Pending recipients nobody holds (SKIP LOCKED: dispatchers running side by
   * side take different rows), leasing them for {@link LEASE}, in contact order from after `after`
   * (the last one this dispatcher claimed; null: from the first). The cursor keeps a claim reading a
   * batch's rows, not every recipient sent before them: without it the claims of a campaign grow
   * with what it has sent (quadratic over a 100,000-recipient campaign). Recipients given back
   * behind the cursor are found when the dispatcher starts over from the first. The pick is a
   * materialized CTE: as a subquery joined to the UPDATE, the planner may run it again for each row
   * and claim far more than `limit`.
   */
  claim(workspaceId: string, campaignId: string, limit: number, after: string | null): Promise<ClaimedRecipient[]> {
    return this.sql<ClaimedRecipient>(
      workspaceId,
      `WITH picked AS MATERIALIZED (
         SELECT contact_id FROM campaign_recipients
          WHERE workspace_id = $1 AND campaign_id = $2 AND status = 'Pending' AND conversation_event_id IS NULL
            AND (lease_until IS NULL OR lease_until < now()) AND ($4::uuid IS NULL OR contact_id > $4::uuid)
          ORDER BY contact_id LIMIT $3 FOR UPDATE SKIP LOCKED),
       claimed AS (
         UPDATE campaign_recipients r SET lease_until = now() + ${LEASE}
           FROM picked c
          WHERE r.workspace_id = $1 AND r.campaign_id = $2 AND r.contact_id = c.contact_id
          RETURNING r.contact_id, r.phone_number, r.whats_app_user_id, r.attempts)
       SELECT contact_id AS "contactId", phone_number AS "phoneNumber", whats_app_user_id AS "whatsAppUserId", attempts
         FROM claimed ORDER BY contact_id`,
      [campaignId, limit, after],
    );
  }

  /**
   * Links Pending recipients to their accepted sends, in the batch's transaction, in one statement,
   * while the campaign is Running. Returns the contact ids linked: one is not when it was not
   * Pending any more (cancelled, or sent by another dispatcher) or the campaign was paused or
   * cancelled meanwhile; the caller then rolls the batch back.
   */
  async linkMany(workspaceId: string, campaignId: string, links: readonly RecipientLink[]): Promise<Set<string>> {
    if (links.length === 0) return new Set();
    const rows = await this.sql<{ contact_id: string }>(
      workspaceId,
      `WITH linked AS (
         UPDATE campaign_recipients r SET status = l.status, conversation_event_id = l.event_id, lease_until = NULL, updated_at = now()
           FROM unnest($3::uuid[], $4::uuid[], $5::varchar[]) AS l(contact_id, event_id, status)
          WHERE r.workspace_id = $1 AND r.campaign_id = $2 AND r.contact_id = l.contact_id
            AND r.status = 'Pending' AND r.conversation_event_id IS NULL
            AND EXISTS (SELECT 1 FROM campaigns k WHERE k.workspace_id = $1 AND k.id = $2 AND k.status = 'Running')
          RETURNING r.contact_id)
       SELECT contact_id FROM linked`,
      [campaignId, links.map((l) => l.contactId), links.map((l) => l.eventId), links.map((l) => (l.scheduled ? 'Scheduled' : 'Sent'))],
    );
    return new Set(rows.map((row) => row.contact_id));
  }

  /** {@link settle} for many recipients, in one statement. */
  async settleMany(workspaceId: string, campaignId: string, settlements: readonly RecipientSettlement[]): Promise<void> {
    if (settlements.length === 0) return;
    await this.sql(
      workspaceId,
      `UPDATE campaign_recipients r SET status = s.status, error_code = s.error_code, lease_until = NULL, updated_at = now()
         FROM unnest($3::uuid[], $4::varchar[], $5::varchar[]) AS s(contact_id, status, error_code)
        WHERE r.workspace_id = $1 AND r.campaign_id = $2 AND r.contact_id = s.contact_id
          AND r.status = 'Pending' AND r.conversation_event_id IS NULL`,
      [campaignId, settlements.map((s) => s.contactId), settlements.map((s) => s.status), settlements.map((s) => s.errorCode)],
    );
  }

  /** Ends a Pending recipient without a send (skipped, or refused by a rule). */
  async settle(
    workspaceId: string,
    campaignId: string,
    contactId: string,
    status: StoredRecipientStatus,
    errorCode: string | null,
  ): Promise<void> {
    await this.sql(
      workspaceId,
      `UPDATE campaign_recipients SET status = $4, error_code = $5, lease_until = NULL, updated_at = now()
        WHERE workspace_id = $1 AND campaign_id = $2 AND contact_id = $3 AND status = 'Pending' AND conversation_event_id IS NULL`,
      [campaignId, contactId, status, errorCode],
    );
  }

  /** Gives claimed recipients back (still Pending) for the next dispatcher. */
  async release(workspaceId: string, campaignId: string, contactIds: string[]): Promise<void> {
    if (contactIds.length === 0) return;
    await this.sql(
      workspaceId,
      `UPDATE campaign_recipients SET lease_until = NULL
        WHERE workspace_id = $1 AND campaign_id = $2 AND contact_id = ANY($3::uuid[]) AND status = 'Pending'`,
      [campaignId, contactIds],
    );
  }

  /** Cancel: every recipient still Pending becomes Cancelled (those sent stay sent). */
  async cancelPending(workspaceId: string, campaignId: string): Promise<number> {
    const rows = await this.sql(
      workspaceId,
      `WITH cancelled AS (
         UPDATE campaign_recipients SET status = 'Cancelled', lease_until = NULL, updated_at = now()
          WHERE workspace_id = $1 AND campaign_id = $2 AND status = 'Pending' RETURNING 1)
       SELECT 1 FROM cancelled`,
      [campaignId],
    );
    return rows.length;
  }

  /** The sends of the campaign still waiting out quiet hours (their events are Scheduled). */
  waitingEventIds(workspaceId: string, campaignId: string): Promise<string[]> {
    return this.eventIdsIn(workspaceId, campaignId, 'Scheduled');
  }

  /** The campaign's sends accepted but not yet handed to the provider (their events are Pending). */
  queuedEventIds(workspaceId: string, campaignId: string): Promise<string[]> {
    return this.eventIdsIn(workspaceId, campaignId, 'Pending');
  }

  private async eventIdsIn(workspaceId: string, campaignId: string, status: 'Pending' | 'Scheduled'): Promise<string[]> {
    const rows = await this.sql<{ id: string }>(
      workspaceId,
      `SELECT e.id FROM campaign_recipients r
         JOIN conversation_events e ON e.workspace_id = r.workspace_id AND e.id = r.conversation_event_id
        WHERE r.workspace_id = $1 AND r.campaign_id = $2 AND e.status = $3`,
      [campaignId, status],
    );
    return rows.map((row) => row.id);
  }

  /** How many recipients are still Pending (claimed or not). */
  async pendingCount(workspaceId: string, campaignId: string): Promise<number> {
    const [row] = await this.sql<{ n: number }>(
      workspaceId,
      `SELECT count(*)::int AS n FROM campaign_recipients WHERE workspace_id = $1 AND campaign_id = $2 AND status = 'Pending'`,
      [campaignId],
    );
    return row.n;
  }

  /**
   * Links a Pending recipient to the call placed for it (Sent, one more attempt). The call's
   * externalId names the recipient and the attempt, so a dispatcher that died before this link
   * gets the same call back from Create Outbound IVR rather than a second one.
   */
  async linkCall(workspaceId: string, campaignId: string, contactId: string, callId: string): Promise<void> {
    await this.sql(
      workspaceId,
      `UPDATE campaign_recipients SET status = 'Sent', outbound_ivr_id = $4, attempts = attempts + 1, lease_until = NULL, updated_at = now()
        WHERE workspace_id = $1 AND campaign_id = $2 AND contact_id = $3 AND status = 'Pending' AND outbound_ivr_id IS NULL`,
      [campaignId, contactId, callId],
    );
  }

  /** The campaign's calls still waiting out quiet hours (not yet placed). */
  async waitingCallIds(workspaceId: string, campaignId: string): Promise<string[]> {
    const rows = await this.sql<{ id: string }>(
      workspaceId,
      `SELECT o.id FROM campaign_recipients r
         JOIN outbound_ivr_requests o ON o.workspace_id = r.workspace_id AND o.id = r.outbound_ivr_id
        WHERE r.workspace_id = $1 AND r.campaign_id = $2 AND o.status = ${OutboundIvrStatus.Pending} AND o.scheduled_for IS NOT NULL`,
      [campaignId],
    );
    return rows.map((row) => row.id);
  }

  /**
   * Redial: recipients whose last call ended as `redial.on` says, with attempts left, become
   * Pending again once `delayMinutes` have passed since that call ended. Returns how many.
   */
  async requeueRedials(workspaceId: string, campaignId: string, redial: CampaignRedial): Promise<number> {
    const rows = await this.sql<{ n: number }>(
      workspaceId,
      `WITH due AS (
         UPDATE campaign_recipients r SET status = 'Pending', outbound_ivr_id = NULL, updated_at = now()
           FROM outbound_ivr_requests o
          WHERE r.workspace_id = $1 AND r.campaign_id = $2 AND r.status = 'Sent' AND r.attempts < $4
            AND o.workspace_id = r.workspace_id AND o.id = r.outbound_ivr_id
            AND (o.status = ANY($3::int[]) OR o.result = ANY($6::int[]))
            AND o.completed_at <= now() - make_interval(mins => $5::int)
          RETURNING 1)
       SELECT count(*)::int AS n FROM due`,
      [campaignId, redialStatuses(redial), redial.maxAttempts, redial.delayMinutes, redialResults(redial)],
    );
    return rows[0].n;
  }

  /** Recipients whose call is under way, or ended in a way that will be redialled: the campaign is not done with them. */
  async callsOutstanding(workspaceId: string, campaignId: string, redial: CampaignRedial | null): Promise<number> {
    const [row] = await this.sql<{ n: number }>(
      workspaceId,
      `SELECT count(*)::int AS n FROM campaign_recipients r
         JOIN outbound_ivr_requests o ON o.workspace_id = r.workspace_id AND o.id = r.outbound_ivr_id
        WHERE r.workspace_id = $1 AND r.campaign_id = $2 AND r.status = 'Sent'
          AND (o.status IN (${CALL_UNDER_WAY})
               OR ((o.status = ANY($3::int[]) OR o.result = ANY($5::int[])) AND r.attempts < $4))`,
      [campaignId, redial ? redialStatuses(redial) : [], redial?.maxAttempts ?? 0, redial ? redialResults(redial) : []],
    );
    return row.n;
  }

  /** The counts of CampaignDto for each campaign, in one aggregate over the derived statuses. */
  async counts(workspaceId: string, campaignIds: string[]): Promise<Map<string, CampaignCountsDto>> {
    if (campaignIds.length === 0) return new Map();
    const rows = await this.sql<{ campaign_id: string } & CampaignCountsDto>(
      workspaceId,
      `SELECT campaign_id,
              count(*)::int AS total,
              count(*) FILTER (WHERE status = 'Pending')::int AS pending,
              count(*) FILTER (WHERE event_status IN ('Sent', 'Delivered', 'Read')
                                  OR call_status BETWEEN ${OutboundIvrStatus.Initiated} AND ${OutboundIvrStatus.Failed})::int AS sent,
              count(*) FILTER (WHERE event_status IN ('Delivered', 'Read'))::int AS delivered,
              count(*) FILTER (WHERE event_status = 'Read')::int AS read,
              count(*) FILTER (WHERE replied)::int AS replied,
              count(*) FILTER (WHERE status = 'Failed')::int AS failed,
              count(*) FILTER (WHERE status = 'SkippedOptedOut')::int AS "skippedOptedOut",
              count(*) FILTER (WHERE status = 'SkippedNoPhone')::int AS "skippedNoPhone",
              count(*) FILTER (WHERE status = 'Scheduled')::int AS "scheduledQuietHours",
              count(*) FILTER (WHERE answered)::int AS answered,
              count(*) FILTER (WHERE digit_pressed)::int AS "digitPressed"
         FROM (${DERIVED}) d GROUP BY campaign_id`,
      [campaignIds],
    );
    return new Map(rows.map(({ campaign_id, ...counts }) => [campaign_id, { ...CampaignCountsDto.zero, ...counts }]));
  }

  /** A page of the campaign's recipients (by contact id), with the status shown, optionally only those with `status`. */
  async page(
    workspaceId: string,
    campaignId: string,
    status: RecipientStatus | undefined,
    paging: PagedRequestDto,
  ): Promise<PagedResult<CampaignRecipientDto>> {
    const rows = await this.sql<DerivedRow>(
      workspaceId,
      `SELECT d.*, count(*) OVER () AS total_count FROM (${DERIVED}) d
        WHERE ($3::text IS NULL OR d.status = $3)
        ORDER BY d.contact_id OFFSET $4 LIMIT $5`,
      [[campaignId], status ?? null, paging.skipCount, paging.maxResultCount],
    );
    const totalCount =
      rows.length > 0 ? Number(rows[0].total_count) : paging.skipCount > 0 ? await this.countShown(workspaceId, campaignId, status) : 0;
    return {
      totalCount,
      items: rows.map((row) => ({
        contactId: row.contact_id,
        phoneNumber: row.phone_number,
        whatsAppUserId: row.whats_app_user_id,
        status: row.status,
        conversationEventId: row.conversation_event_id,
        outboundIvrId: row.outbound_ivr_id,
        errorCode: row.error_code,
        updatedAt: row.updated_at.toISOString(),
      })),
    };
  }

  private async countShown(workspaceId: string, campaignId: string, status: RecipientStatus | undefined): Promise<number> {
    const [row] = await this.sql<{ n: number }>(
      workspaceId,
      `SELECT count(*)::int AS n FROM (${DERIVED}) d WHERE ($3::text IS NULL OR d.status = $3)`,
      [[campaignId], status ?? null],
    );
    return row.n;
  }
}

/** The call statuses a redial policy redials. */
function redialStatuses(redial: CampaignRedial): number[] {
  return redial.on.flatMap((ending) =>
    ending === 'Busy' ? [OutboundIvrStatus.Busy] : ending === 'NoAnswer' ? [OutboundIvrStatus.NoAnswer] : [],
  );
}

/** The call results a redial policy redials: a machine's answer (the call itself Completed). */
function redialResults(redial: CampaignRedial): number[] {
  return redial.on.includes('AnsweringMachine') ? [OutboundIvrResult.AnsweringMachine] : [];
}
