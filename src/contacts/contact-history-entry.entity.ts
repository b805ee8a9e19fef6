import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Contact } from './contact.entity.js';

/** One actual change of one field of a contact: the audit trail behind Contacts History. */
@Entity('contact_history')
@Index(['workspaceId', 'contactId', 'creationTime'])
export class ContactHistoryEntry {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid') workspaceId: string;
  @Column('uuid') contactId: string;
  @ManyToOne(() => Contact, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'contact_id' })
  contact?: Contact;
  /** The custom property's name, or a built-in field: Name, PhoneNumber, Email, Company, Position, ContactType. */
  @Column({ type: 'varchar', length: 100 }) propertyName: string;
  /** Null for built-in fields. */
  @Column({ type: 'uuid', nullable: true }) propertyDefinitionId: string | null;
  @Column({ type: 'text', nullable: true }) oldValue: string | null;
  @Column({ type: 'text', nullable: true }) newValue: string | null;
  @CreateDateColumn({ type: 'timestamptz' }) creationTime: Date;
  @Column({ type: 'uuid', nullable: true }) creatorId: string | null;
}
