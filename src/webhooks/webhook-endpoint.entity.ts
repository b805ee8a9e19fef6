import { Column, CreateDateColumn, Entity, Index, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/**
 * A URL a workspace registered to receive events (API.md §11.1), with its filters, throttle,
 * ordering, custom headers and its own signing secret (sealed with the encryption key).
 */
@Entity('webhook_endpoints')
@Index(['workspaceId', 'creationTime'])
export class WebhookEndpoint {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid') workspaceId: string;
  @Column({ type: 'varchar', length: 2048 }) url: string;
  @Column({ type: 'varchar', length: 500, nullable: true }) description: string | null;
  /** Event types taken; null takes every type. */
  @Column({ type: 'varchar', length: 50, array: true, nullable: true }) eventTypes: string[] | null;
  /** Channels whose events are taken; null takes every channel (events of no channel always pass). */
  @Column({ type: 'uuid', array: true, nullable: true }) channelIds: string[] | null;
  @Column({ type: 'int', nullable: true }) rateLimitPerSecond: number | null;
  @Column({ type: 'boolean', default: false }) ordered: boolean;
  @Column({ type: 'jsonb', default: {} }) headers: Record<string, string>;
  @Column({ type: 'boolean', default: false }) disabled: boolean;
  @Column({ type: 'varchar', length: 500, nullable: true }) disabledReason: string | null;
  @Column({ type: 'timestamptz', nullable: true }) disabledAt: Date | null;
  /** Standard Webhooks secret (`whsec_…`), sealed. */
  @Column({ type: 'text' }) secretSealed: string;
  /** The secret before the last rotation, still signed with until `previousSecretExpiresAt`. */
  @Column({ type: 'text', nullable: true }) previousSecretSealed: string | null;
  @Column({ type: 'timestamptz', nullable: true }) previousSecretExpiresAt: Date | null;
  /** The first failed attempt since the last successful one (null while attempts succeed): drives auto-disable. */
  @Column({ type: 'timestamptz', nullable: true }) failingSince: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) creationTime: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) lastModificationTime: Date;
}
