import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { ContactPropertyDefinition } from '../contact-properties/contact-property-definition.entity.js';
import { Contact } from './contact.entity.js';

/**
 * A contact's value of one custom property. At most one per contact and property (a unique
 * constraint, so concurrent sets cannot make two); the value sits in the column of its type.
 */
@Entity('contact_property_values')
@Index(['contactId', 'propertyDefinitionId'], { unique: true })
@Index(['workspaceId', 'propertyDefinitionId', 'selectValue'])
@Index(['workspaceId', 'propertyDefinitionId', 'numberValue'])
@Index(['workspaceId', 'propertyDefinitionId', 'dateValue'])
export class ContactPropertyValue {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid') workspaceId: string;
  @Column('uuid') contactId: string;
  @ManyToOne(() => Contact, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'contact_id' })
  contact?: Contact;
  @Column('uuid') propertyDefinitionId: string;
  @ManyToOne(() => ContactPropertyDefinition, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'property_definition_id' })
  definition?: ContactPropertyDefinition;
  @Column({ type: 'text', nullable: true }) textValue: string | null;
  /** numeric: exact decimals. */
  @Column({ type: 'numeric', nullable: true }) numberValue: string | null;
  @Column({ type: 'timestamptz', nullable: true }) dateValue: Date | null;
  @Column({ type: 'varchar', length: 100, nullable: true }) selectValue: string | null;
}
