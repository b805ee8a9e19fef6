import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { AuditedEntity } from '../database/audited.entity.js';
import { ContactType } from './contact-type.js';

export { ContactType };

/**
 * A person or business of a workspace, known by a phone number, a WhatsApp business-scoped user id
 * (BSUID, Meta's usernames of 2026), or both: each unique in the workspace where set.
 */
@Entity('contacts')
@Index(['workspaceId', 'phoneNumber'], { unique: true })
@Index('ux_contacts_whats_app_user_id', ['workspaceId', 'whatsAppUserId'], { unique: true, where: 'whats_app_user_id IS NOT NULL' })
@Index('ux_contacts_whats_app_parent_user_id', ['workspaceId', 'whatsAppParentUserId'], {
  unique: true,
  where: 'whats_app_parent_user_id IS NOT NULL',
})
@Index('ux_contacts_whats_app_username', ['workspaceId', 'whatsAppUsername'], { unique: true, where: 'whats_app_username IS NOT NULL' })
@Index(['workspaceId', 'creationTime'])
@Index(['workspaceId', 'name'])
@Index(['workspaceId', 'lastModificationTime'])
@Check('ck_contacts_identity', 'phone_number IS NOT NULL OR whats_app_user_id IS NOT NULL')
export class Contact extends AuditedEntity {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid') workspaceId: string;
  @Column({ type: 'varchar', length: 200 }) name: string;
  /** E.164 with a leading +; null for a WhatsApp user known only by their BSUID. */
  @Column({ type: 'varchar', length: 20, nullable: true }) phoneNumber: string | null;
  /** The WhatsApp business-scoped user id (`CC.digits`). */
  @Column({ type: 'varchar', length: 150, nullable: true }) whatsAppUserId: string | null;
  /** The parent BSUID shared across a business's portfolios (`CC.ENT.digits`). */
  @Column({ type: 'varchar', length: 150, nullable: true }) whatsAppParentUserId: string | null;
  /** The user's WhatsApp username, as last seen. */
  @Column({ type: 'varchar', length: 100, nullable: true }) whatsAppUsername: string | null;
  @Column({ type: 'smallint', default: ContactType.Individual }) contactType: ContactType;
  @Column({ type: 'varchar', length: 320, nullable: true }) email: string | null;
  @Column({ type: 'varchar', length: 200, nullable: true }) company: string | null;
  @Column({ type: 'varchar', length: 200, nullable: true }) position: string | null;
  @Column({ type: 'jsonb', nullable: true }) customFields: Record<string, unknown> | null;
}
