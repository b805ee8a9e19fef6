import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A WhatsApp user's permission for one business number to call them (API.md §15), as Meta told
 * it (`call_permission_reply`, or the user calling first with callback permission on), and the
 * permission requests sent to them, for Meta's limits on those.
 */
@Entity('whatsapp_call_permissions')
export class WhatsAppCallPermission {
  @PrimaryColumn('uuid') workspaceId: string;
  @PrimaryColumn('uuid') channelId: string;
  /** The user's number, E.164. */
  @PrimaryColumn({ type: 'varchar', length: 150 }) userNumber: string;
  /** Granted or Denied; null while only requests were sent. */
  @Column({ type: 'varchar', length: 10, nullable: true }) status: 'Granted' | 'Denied' | null;
  /** When a temporary permission ends; null for a permanent one (or none). */
  @Column({ type: 'timestamptz', nullable: true }) expiresAt: Date | null;
  @Column({ type: 'boolean', default: false }) permanent: boolean;
  /** When Meta said so (the reply's or the call's time); a late webhook never undoes a newer answer. */
  @Column({ type: 'timestamptz', nullable: true }) answeredAt: Date | null;
  /** The permission requests sent in the last 7 days (Meta allows 1 a day and 2 a week). */
  @Column({ type: 'timestamptz', array: true, default: () => "'{}'" }) requestedAt: Date[];
}
