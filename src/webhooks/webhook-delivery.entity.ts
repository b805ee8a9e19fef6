import { Column, CreateDateColumn, Entity, Generated, Index, PrimaryColumn } from 'typeorm';
import { WebhookDeliveryStatus } from './webhook-kind.js';

/**
 * One event for one target, and the log of its delivery. Its id is the `webhook-id` header,
 * the same on every attempt.
 */
@Entity('webhook_deliveries')
@Index(['workspaceId', 'creationTime'])
@Index(['workspaceId', 'status', 'creationTime'])
/** Retention deletes deliveries by age across workspaces. */
@Index('ix_webhook_deliveries_creation_time', ['creationTime'])
@Index('ix_webhook_deliveries_overdue', ['nextAttemptAt'], { where: `status = 'Pending'` })
@Index(['workspaceId', 'endpointId', 'creationTime'])
@Index('ix_webhook_deliveries_key_order', ['endpointId', 'orderingKey', 'seq'], { where: `status = 'Pending' AND endpoint_id IS NOT NULL` })
export class WebhookDelivery {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid') workspaceId: string;
  /** The endpoint it goes to (API.md §11.1); null for a channel's or a request's URL. Kept after the endpoint is deleted. */
  @Column({ type: 'uuid', nullable: true }) endpointId: string | null;
  /** The event type (`webhook-event` header). */
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
  /** The conversation (or contact) whose events an ordered endpoint receives one after another. */
  @Column({ type: 'varchar', length: 100, nullable: true }) orderingKey: string | null;
  /** Write order: a later event of a key is numbered higher (its writer held the key's row lock). */
  @Column({ type: 'bigint' }) @Generated('increment') seq: string;
  @CreateDateColumn({ type: 'timestamptz' }) creationTime: Date;
}
