import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { AuditedEntity } from '../database/audited.entity.js';
import { Contact } from './contact.entity.js';

@Entity('contact_notes')
@Index(['workspaceId', 'contactId', 'creationTime'])
export class ContactNote extends AuditedEntity {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid') workspaceId: string;
  @Column('uuid') contactId: string;
  @ManyToOne(() => Contact, { onDelete: 'CASCADE', createForeignKeyConstraints: true })
  @JoinColumn({ name: 'contact_id' })
  contact?: Contact;
  @Column({ type: 'text' }) text: string;
  @Column({ type: 'varchar', length: 200, nullable: true }) creatorName: string | null;
}
