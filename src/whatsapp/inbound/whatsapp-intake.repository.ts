import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { currentManager } from '../../database/transactions.js';
import { newId } from '../../common/id.js';
import { deleteBatch } from '../../database/sql-helpers.js';
import { WhatsAppIntakeRow } from './whatsapp-intake.entity.js';

/** A notification to write: the channel it came through and its body as Meta posted it. */
export interface IntakeEntry {
  workspaceId: string;
  channelId: string;
  body: string;
}

/** A row a worker has claimed. */
export interface ClaimedRow {
  id: string;
  workspace_id: string;
  channel_id: string;
  body: string;
  attempts: number;
}

/**
 * The intake table. Unscoped by design, like the outbox: the edge writes rows of whichever channel
 * Meta posted for (its signature checked), and workers claim the oldest rows whoever they belong to;
 * no route reads it.
 */
@Injectable()
export class WhatsAppIntakeRepository {
  constructor(@InjectRepository(WhatsAppIntakeRow) private readonly repository: Repository<WhatsAppIntakeRow>) {}

  /** The ambient transaction's manager, or the plain one outside a transaction. */
  private get manager() {
    return currentManager();
  }

  /** One INSERT for all the entries. */
  async insertMany(entries: IntakeEntry[]): Promise<void> {
    await this.manager.query(
      `INSERT INTO whatsapp_intake (id, workspace_id, channel_id, body)
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[])`,
      [entries.map(() => newId()), entries.map((e) => e.workspaceId), entries.map((e) => e.channelId), entries.map((e) => e.body)],
    );
  }

  /** Claims up to `limit` rows nobody holds, oldest first, for `leaseSeconds`; in the order they came. */
  async claimUnscoped(limit: number, leaseSeconds: number): Promise<ClaimedRow[]> {
    // RETURNING keeps no order of its own: the claimed rows are sorted after.
    return this.manager.query<ClaimedRow[]>(
      `WITH claimed AS (
         UPDATE whatsapp_intake SET claimed_until = now() + make_interval(secs => $2), attempts = attempts + 1
          WHERE id IN (SELECT id FROM whatsapp_intake
                        WHERE processed_at IS NULL AND (claimed_until IS NULL OR claimed_until < now())
                        ORDER BY received_at LIMIT $1 FOR UPDATE SKIP LOCKED)
          RETURNING id, workspace_id, channel_id, body, attempts, received_at
       )
       SELECT id, workspace_id, channel_id, body, attempts FROM claimed ORDER BY received_at, id`,
      [limit, leaseSeconds],
    );
  }

  /** In the caller's transaction when there is one (the rows recorded in it). */
  async markProcessed(ids: string[]): Promise<void> {
    await this.manager.query(`UPDATE whatsapp_intake SET processed_at = now(), claimed_until = NULL WHERE id = ANY($1::uuid[])`, [ids]);
  }

  /** Done with the row, keeping why it could not be processed. */
  async giveUp(id: string, reason: string): Promise<void> {
    await this.manager.query(`UPDATE whatsapp_intake SET processed_at = now(), claimed_until = NULL, last_error = $2 WHERE id = $1`, [
      id,
      reason,
    ]);
  }

  /** Claimable again in `delaySeconds`. */
  async retryLater(id: string, delaySeconds: number, reason: string): Promise<void> {
    await this.manager.query(
      `UPDATE whatsapp_intake SET claimed_until = now() + make_interval(secs => $2), last_error = $3 WHERE id = $1`,
      [id, delaySeconds, reason],
    );
  }

  /** Retention: at most `limit` rows processed before `cutoff`; the number deleted. */
  deleteProcessedBefore(cutoff: Date, limit: number): Promise<number> {
    return deleteBatch(this.manager, 'whatsapp_intake', 'processed_at < $1', [cutoff], limit);
  }
}
