import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { TiersSetBy } from './channel-limits.entity.js';

/**
 * A business portfolio's messaging limit (API.md §14): Meta counts unique recipients per portfolio,
 * so the limit is one number for all the workspace's channels with this `businessId` (their own
 * rows' messaging limit is shadowed while they belong to it). Set by an operator's PUT on any of
 * its channels or by Meta's webhooks; a portfolio without a row yet takes the limit of the first
 * channel that joins it.
 */
@Entity('business_limits')
export class BusinessLimits {
  @PrimaryColumn('uuid') workspaceId: string;
  @PrimaryColumn({ type: 'varchar', length: 100 }) businessId: string;
  /** Unique recipients of business-initiated conversations per rolling 24 h; null: unlimited. */
  @Column({ type: 'int', nullable: true }) messagingLimit: number | null;
  @Column({ type: 'varchar', length: 20 }) setBy: TiersSetBy;
  @UpdateDateColumn({ type: 'timestamptz' }) lastModificationTime: Date;
}
