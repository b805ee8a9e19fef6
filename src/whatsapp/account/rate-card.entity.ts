import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A workspace's own prices per message category, for an estimated cost beside the counts (never Meta's prices). */
@Entity('whatsapp_rate_cards')
export class WhatsAppRateCard {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'PK_whatsapp_rate_cards' }) workspaceId: string;
  /** ISO 4217, upper case. */
  @Column({ type: 'varchar', length: 3 }) currency: string;
  /** Price of one charged message by Meta's category (marketing, utility, …). */
  @Column({ type: 'jsonb' }) perCategory: Record<string, number>;
  @Column({ type: 'timestamptz' }) updatedAt: Date;
}
