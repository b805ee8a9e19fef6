import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { QuietHours } from './quiet-hours.js';

/** Where a contact's time zone comes from (API.md §13): a property, else its number's country, else `default`. */
export interface TimeZonePolicy {
  fromPhoneNumber: boolean;
  /** A contact property definition (Text or Select) holding an IANA zone name; null: none. */
  property: string | null;
  /** IANA zone name. */
  default: string;
}

/** At most `count` marketing templates to one contact in any `days` days. */
export interface FrequencyCap {
  marketingPerDays: { count: number; days: number };
}

/**
 * A workspace's send policy (API.md §13). A null part is its default: {@link DEFAULT_STOP_WORDS},
 * {@link DEFAULT_START_WORDS}, no quiet hours, {@link DEFAULT_TIME_ZONE_POLICY}, no frequency cap;
 * a workspace without a row has them all.
 */
@Entity('send_policies')
export class SendPolicy {
  @PrimaryColumn('uuid') workspaceId: string;
  /** Stop words as the workspace wrote them (trimmed, inner spaces collapsed); null: the defaults. */
  @Column({ type: 'jsonb', nullable: true }) stopWords: string[] | null;
  /** Start words likewise. */
  @Column({ type: 'jsonb', nullable: true }) startWords: string[] | null;
  @Column({ type: 'jsonb', nullable: true }) quietHours: QuietHours | null;
  @Column({ type: 'jsonb', nullable: true }) timezone: TimeZonePolicy | null;
  @Column({ type: 'jsonb', nullable: true }) frequencyCap: FrequencyCap | null;
  @UpdateDateColumn({ type: 'timestamptz' }) lastModificationTime: Date;
}

export const DEFAULT_TIME_ZONE_POLICY: Readonly<TimeZonePolicy> = { fromPhoneNumber: true, property: null, default: 'Asia/Riyadh' };

/** The parts of a policy an update writes. */
export type SendPolicyParts = Partial<Pick<SendPolicy, 'stopWords' | 'startWords' | 'quietHours' | 'timezone' | 'frequencyCap'>>;
