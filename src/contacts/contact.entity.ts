import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { AuditedEntity } from '../database/audited.entity.js';
import { ContactType } from './contact-type.js';

export { ContactType };

@Entity('contacts')
@Index(['workspaceId', 'phoneNumber'], { unique: true })
@Index(['workspaceId', 'creationTime'])
@Index(['workspaceId', 'name'])
@Index(['workspaceId', 'lastModificationTime'])
export class Contact extends AuditedEntity {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid') workspaceId: string;
  @Column({ type: 'varchar', length: 200 }) name: string;
  /** E.164 with a leading +. */
  @Column({ type: 'varchar', length: 20 }) phoneNumber: string;
  @Column({ type: 'smallint', default: ContactType.Individual }) contactType: ContactType;
  @Column({ type: 'varchar', length: 320, nullable: true }) email: string | null;
  @Column({ type: 'varchar', length: 200, nullable: true }) company: string | null;
  @Column({ type: 'varchar', length: 200, nullable: true }) position: string | null;
  @Column({ type: 'jsonb', nullable: true }) customFields: Record<string, unknown> | null;
}
