import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { AuditedEntity } from '../database/audited.entity.js';
import { ContactPropertyType } from './contact-property-type.js';

export { ContactPropertyType };

export interface SelectOption {
  value: string;
  color: string | null;
}

/** A workspace-defined custom contact property. */
@Entity('contact_property_definitions')
@Index(['workspaceId', 'normalizedName'], { unique: true })
@Index(['workspaceId', 'key'], { unique: true })
@Index(['workspaceId', 'creationTime'])
export class ContactPropertyDefinition extends AuditedEntity {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid') workspaceId: string;
  @Column({ type: 'varchar', length: 100 }) name: string;
  /** Lower-cased, trimmed name: names are unique regardless of case. */
  @Column({ type: 'varchar', length: 100 }) normalizedName: string;
  /** Derived from the name (`Lead Status` → `lead_status`). */
  @Column({ type: 'varchar', length: 100 }) key: string;
  @Column({ type: 'smallint' }) type: ContactPropertyType;
  @Column({ type: 'boolean', default: false }) isRequired: boolean;
  @Column({ type: 'jsonb', default: () => `'[]'` }) selectOptions: SelectOption[];
}
