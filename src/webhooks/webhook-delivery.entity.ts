import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';
import { WebhookDeliveryStatus } from './webhook-kind.js';

/**
 * One event for one target, and the log of its delivery. Its id is the `webhook-id` header,
 * the same on every attempt.
 */
@Entity('webhook_deliveries')
@Index(['workspaceId', 'creationTime'])
@Index(['workspaceId', 'status', 'creationTime'])
@Index('ix_webhook_deliveries_overdue', ['nextAttemptAt'], { where: `status = 'Pending'` })
export class WebhookDelivery {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid') workspaceId: string;
  @Column({ type: 'varchar', length: 50 }) kind: string;
  @Column({ type: 'varchar', length: 2048 }) targetUrl: string;
  @Column({ type: 'jsonb' }) payload: Record<string, unknown>;
  @Column({ type: 'varchar', length: 20 }) status: WebhookDeliveryStatus;
  /** Attempts made, in all. */
  @Column({ type: 'int', default: 0 }) attempts: number;
  /** Attempts made since the event was (re)queued: indexes the retry schedule. */
  @Column({ type: 'int', default: 0 }) cycleAttempts: number;
  @Column({ type: 'smallint', nullable: true }) lastStatusCode: number | null;
  @Column({ type: 'varchar', length: 1000, nullable: true }) lastError: string | null;
  @Column({ type: 'timestamptz', nullable: true }) nextAttemptAt: Date | null;
  @Column({ type: 'timestamptz', nullable: true }) lastAttemptAt: Date | null;
  /** While an attempt runs: a worker that dies mid-attempt lets another take over after this. */
  @Column({ type: 'timestamptz', nullable: true }) leaseUntil: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) creationTime: Date;
}
