import { Check, Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { AuditedEntity } from '../database/audited.entity.js';
import type { ConsentSource, ConsentStatus } from './consent.js';
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
@Index('ix_contacts_whats_app_marketing_consent', ['workspaceId', 'whatsAppMarketingConsent'], {
  where: "whats_app_marketing_consent <> 'Unknown'",
})
@Index('ix_contacts_call_consent', ['workspaceId', 'callConsent'], { where: "call_consent <> 'Unknown'" })
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
  /** Consent to WhatsApp marketing messages (API.md §13): Unknown, OptedIn or OptedOut; when and how it was set. */
  @Column({ type: 'varchar', length: 10, default: 'Unknown' }) whatsAppMarketingConsent: ConsentStatus;
  @Column({ type: 'timestamptz', nullable: true }) whatsAppMarketingConsentAt: Date | null;
  @Column({ type: 'varchar', length: 10, nullable: true }) whatsAppMarketingConsentSource: ConsentSource | null;
  /** Consent to calls (a do-not-call list is its OptedOut contacts). */
  @Column({ type: 'varchar', length: 10, default: 'Unknown' }) callConsent: ConsentStatus;
  @Column({ type: 'timestamptz', nullable: true }) callConsentAt: Date | null;
  @Column({ type: 'varchar', length: 10, nullable: true }) callConsentSource: ConsentSource | null;
}
