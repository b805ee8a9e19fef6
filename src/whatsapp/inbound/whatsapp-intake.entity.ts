import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * Meta's webhook notifications as they arrived at the edge (signature checked), waiting for a
 * worker: the request writes one row and answers 200; workers claim rows in batches
 * (`FOR UPDATE SKIP LOCKED`) and record their messages. A claim is a lease (`claimedUntil`): a
 * row claimed by a worker that died is claimed again once it lapses (messages are deduplicated
 * by provider message id). `processedAt` marks a row done; retention deletes done rows by age.
 * Not workspace-scoped reads: only the intake loop reads it, by claim.
 */
@Entity('whatsapp_intake')
/** Claiming: the unprocessed rows in arrival order. */
@Index('ix_whatsapp_intake_pending', ['receivedAt'], { where: 'processed_at IS NULL' })
/** Retention deletes processed rows by age. */
@Index('ix_whatsapp_intake_processed', ['processedAt'], { where: 'processed_at IS NOT NULL' })
export class WhatsAppIntakeRow {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid') workspaceId: string;
  @Column('uuid') channelId: string;
  /** The notification's body exactly as Meta posted it (JSON text). */
  @Column('text') body: string;
  @CreateDateColumn({ type: 'timestamptz' }) receivedAt: Date;
  /** Set by a claim: until then the row is the claiming worker's. */
  @Column({ type: 'timestamptz', nullable: true }) claimedUntil: Date | null;
  @Column({ type: 'int', default: 0 }) attempts: number;
  @Column({ type: 'timestamptz', nullable: true }) processedAt: Date | null;
  /** The last failure, when processing failed (and, after the last attempt, why the row was given up). */
  @Column({ type: 'varchar', length: 1000, nullable: true }) lastError: string | null;
}
