import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { deleteBatch } from '../../database/sql-helpers.js';
import { WorkspaceScopedRepository } from '../../database/workspace-scoped.repository.js';
import { SendClaim } from './send-claim.entity.js';

/**
 * How long a run's claim of a send stands before another run takes its holder for dead: past the
 * longest a run asks (a media upload's 300 s, then the send's 15 s, twice with fresh credentials).
 */
export const SEND_CLAIM_LEASE_MS = 6 * 60_000;

/** What {@link SendClaimsRepository.claim} found. */
export interface SendClaimResult {
  /** The message's status; undefined when there is no such message. */
  status: string | null | undefined;
  /** Who holds the claim (this run's name when it has just claimed); null when nobody does, or when this statement could not see it. */
  holder: string | null;
  /**
   * Since when another run holds the claim; null when this statement could not see it (a claim
   * committed while it waited on the key: its snapshot predates it, so it is a fresh one).
   */
  since: Date | null;
}

@Injectable()
export class SendClaimsRepository extends WorkspaceScopedRepository<SendClaim> {
  constructor(@InjectRepository(SendClaim) repository: Repository<SendClaim>) {
    super(repository);
  }

  /**
   * Reads an outbound message's status and, when it is Pending and nobody holds it, claims it for
   * the run named `holder`, all in one statement: of two runs at once exactly one inserts the claim
   * (the other waits on the key, then finds the conflict).
   */
  async claim(workspaceId: string, eventId: string, holder: string): Promise<SendClaimResult> {
    return (await this.claimMany(workspaceId, [{ eventId, holder }]))[0];
  }

  /**
   * {@link claim} for many runs in one statement, a result each, in order. Runs naming one message
   * in the same call: the first claims it, the others find it held (by nobody they can see, as a
   * run whose statement waited on the key does).
   */
  async claimMany(workspaceId: string, runs: ReadonlyArray<{ eventId: string; holder: string }>): Promise<SendClaimResult[]> {
    const rows = await this.sql<{ n: number; status: string | null; claimed: boolean; held_by: string | null; since: Date | null }>(
      workspaceId,
      `WITH input AS (
         SELECT * FROM jsonb_to_recordset($2::jsonb) AS i(n int, event_id uuid, holder varchar)
       ), event AS (
         SELECT id, status FROM conversation_events WHERE workspace_id = $1 AND id IN (SELECT event_id FROM input)
       ), claim AS (
         INSERT INTO send_claims (event_id, workspace_id, holder)
         SELECT DISTINCT ON (i.event_id) i.event_id, $1, i.holder FROM input i JOIN event ON event.id = i.event_id
          WHERE event.status = 'Pending' ORDER BY i.event_id, i.n
         ON CONFLICT (event_id) DO NOTHING
         RETURNING event_id, holder
       )
       SELECT i.n, event.status, COALESCE(claim.holder = i.holder, false) AS claimed, held.holder AS held_by, held.claimed_at AS since
         FROM input i JOIN event ON event.id = i.event_id
         LEFT JOIN claim ON claim.event_id = i.event_id
         LEFT JOIN send_claims held ON held.workspace_id = $1 AND held.event_id = i.event_id`,
      [JSON.stringify(runs.map((run, n) => ({ n, event_id: run.eventId, holder: run.holder })))],
    );
    const byRun = new Map(rows.map((row) => [row.n, row]));
    return runs.map((run, n): SendClaimResult => {
      const row = byRun.get(n);
      if (!row) return { status: undefined, holder: null, since: null };
      return { status: row.status, holder: row.claimed ? run.holder : row.held_by, since: row.claimed ? null : row.since };
    });
  }

  /**
   * Gives a run's claim up (the provider refused for now, the governor makes the send wait, or the
   * run failed before the provider answered): a later run may ask. Only the claim of that run
   * (`holder`): a claim another run took since stays.
   */
  async release(workspaceId: string, eventId: string, holder: string): Promise<void> {
    await this.sql(workspaceId, 'DELETE FROM send_claims WHERE workspace_id = $1 AND event_id = $2 AND holder = $3', [eventId, holder]);
  }

  /**
   * Retention, across workspaces by design (a system job): deletes at most `limit` claims taken
   * before `cutoff` whose message has left Pending (a claim matters only while its message is
   * Pending: every run reads the status with the claim; a message that stays Pending keeps its
   * claim, so a late run still ends it interrupted rather than sending it again); the number deleted.
   */
  deleteSettledUnscopedBefore(cutoff: Date, limit: number): Promise<number> {
    return deleteBatch(
      this.manager,
      'send_claims',
      `claimed_at < $1 AND NOT EXISTS (
         SELECT 1 FROM conversation_events e
          WHERE e.workspace_id = send_claims.workspace_id AND e.id = send_claims.event_id AND e.status = 'Pending')`,
      [cutoff],
      limit,
      'event_id',
    );
  }
}
