import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * What a recipient row stores. Once linked to its send (`conversationEventId`), the status shown is
 * derived at read time from that event (Sent, Delivered, Read, Failed, Scheduled) and from replies.
 */
export type StoredRecipientStatus = 'Pending' | 'Sent' | 'Scheduled' | 'Failed' | 'SkippedOptedOut' | 'SkippedNoPhone' | 'Cancelled';

/** One contact of a campaign's audience, snapshotted at start. */
@Entity('campaign_recipients')
@Index('IDX_campaign_recipients_status', ['workspaceId', 'campaignId', 'status'])
@Index('IDX_campaign_recipients_event', ['conversationEventId'])
// The dispatcher's claim: the recipients still to send, in contact order.
@Index('IDX_campaign_recipients_unsent', ['workspaceId', 'campaignId', 'contactId'], {
  where: `status = 'Pending' AND conversation_event_id IS NULL`,
})
export class CampaignRecipient {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'PK_campaign_recipients' }) campaignId: string;
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'PK_campaign_recipients' }) contactId: string;
  @Column('uuid') workspaceId: string;
  /** The number at the snapshot (null: SkippedNoPhone, unless the campaign calls over WhatsApp and has the BSUID). */
  @Column({ type: 'varchar', length: 32, nullable: true }) phoneNumber: string | null;
  /** The contact's BSUID at the snapshot: an IVR campaign over WhatsApp calls a contact without a number by it. */
  @Column({ type: 'varchar', length: 150, nullable: true }) whatsAppUserId: string | null;
  @Column({ type: 'varchar', length: 20 }) status: StoredRecipientStatus;
  /** The send, linked in the transaction that recorded it: a linked recipient is never sent again. */
  @Column({ type: 'uuid', nullable: true }) conversationEventId: string | null;
  @Column({ type: 'uuid', nullable: true }) outboundIvrId: string | null;
  @Column({ type: 'varchar', length: 100, nullable: true }) errorCode: string | null;
  /** Calls placed to the recipient so far (IVR campaigns redial up to `redial.maxAttempts`). */
  @Column({ type: 'smallint', default: 0 }) attempts: number;
  /** A dispatcher's claim: until then no other dispatcher takes the row (a crashed one's claim lapses). */
  @Column({ type: 'timestamptz', nullable: true }) leaseUntil: Date | null;
  @Column({ type: 'timestamptz' }) updatedAt: Date;
}
