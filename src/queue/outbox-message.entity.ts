import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * Work handed from a request to the workers. Written in the request's own transaction, so the
 * work exists exactly when the change that caused it does; the relay moves it to Bull with the
 * row id as the job id and stamps `dispatchedAt`.
 */
@Entity('outbox_messages')
@Index('ix_outbox_messages_pending', ['createdAt'], { where: 'dispatched_at IS NULL' })
/** Retention deletes finished rows by age. */
@Index('ix_outbox_messages_completed', ['completedAt'], { where: 'completed_at IS NOT NULL' })
@Index('ix_outbox_messages_unfinished', ['dispatchedAt'], { where: 'dispatched_at IS NOT NULL AND completed_at IS NULL' })
export class OutboxMessage {
  @PrimaryColumn('uuid') id: string;
  @Column({ type: 'uuid', nullable: true }) workspaceId: string | null;
  @Column({ type: 'varchar', length: 100 }) queue: string;
  @Column({ type: 'varchar', length: 100 }) jobName: string;
  @Column({ type: 'jsonb' }) payload: Record<string, unknown>;
  /** Earliest time the job may run (ms epoch delay is computed at dispatch). */
  @Column({ type: 'timestamptz', nullable: true }) runAt: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @Column({ type: 'timestamptz', nullable: true }) dispatchedAt: Date | null;
  /** Set when a worker finished the job (or gave up on it); a dispatched row without it whose job Redis lost is pushed again. */
  @Column({ type: 'timestamptz', nullable: true }) completedAt: Date | null;
}
