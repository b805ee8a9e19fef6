import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/**
 * A channel's send tiers as the operator set them (API.md §13). A channel without a row has the
 * defaults ({@link defaultLimits}); the first PUT writes every value, the defaults filling what it left out.
 */
@Entity('channel_limits')
export class ChannelLimits {
  @PrimaryColumn('uuid') channelId: string;
  @Column('uuid') workspaceId: string;
  @Column('int') throughputPerSecond: number;
  /** Unique recipients of business-initiated conversations per rolling 24 h; null: unlimited. */
  @Column({ type: 'int', nullable: true }) messagingLimit: number | null;
  @Column('int') callsPerSecond: number;
  @Column('int') concurrentCalls: number;
  /** Who set the tiers last: `Operator` (PUT .../limits) or `Meta` (a phone_number_quality_update or account_update webhook). */
  @Column({ type: 'varchar', length: 20, default: 'Operator' }) setBy: TiersSetBy;
  /** The number's quality as Meta last reported it (GREEN, YELLOW, RED, UNKNOWN); null until Meta reports one. */
  @Column({ type: 'varchar', length: 20, nullable: true }) qualityRating: string | null;
  /**
   * Meta's restriction of business-initiated messaging on the number's account (`account_update`):
   * `RESTRICTED_BIZ_INITIATED_MESSAGING` or `DISABLED` (the account banned); null when none. While it
   * is in force the messaging limit is 0; lifting it (or its end passing) brings the limit back.
   */
  @Column({ type: 'varchar', length: 60, nullable: true }) restriction: string | null;
  /** When the restriction ends by itself (Meta's `expiration`); null: until Meta lifts it. */
  @Column({ type: 'timestamptz', nullable: true }) restrictionEndsAt: Date | null;
  @UpdateDateColumn({ type: 'timestamptz' }) lastModificationTime: Date;
}

/** A restriction of business-initiated messaging in force on a channel (see {@link ChannelLimits.restriction}). */
export interface Restriction {
  reason: string;
  endsAt: Date | null;
}

export type TiersSetBy = 'Operator' | 'Meta';

/** The tiers themselves, without the row's bookkeeping. */
export type Limits = Pick<ChannelLimits, 'throughputPerSecond' | 'messagingLimit' | 'callsPerSecond' | 'concurrentCalls'>;

/**
 * Meta's messaging-limit tiers an operator may set. API.md §13 lists 250, 2,000, 10,000 and 100,000, yet makes 1,000 the
 * default of a cloud-api channel: 1,000 is Meta's own first tier (a verified business starts there,
 * an unverified one at 250), so it is accepted too, or the default could not be set back.
 */
export const MESSAGING_LIMIT_TIERS = [250, 1000, 2000, 10000, 100000] as const;

/** API.md §13: 80 messages/s, 1,000 recipients a day on a cloud-api number (unlimited on a sandbox one), 1 call/s, 10 calls at once. */
export function defaultLimits(whatsAppProvider: string | null): Limits {
  return {
    throughputPerSecond: 80,
    messagingLimit: whatsAppProvider === 'cloud-api' ? 1000 : null,
    callsPerSecond: 1,
    concurrentCalls: 10,
  };
}
