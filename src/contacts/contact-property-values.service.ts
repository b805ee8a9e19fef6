import { Injectable } from '@nestjs/common';
import type { Principal } from '../auth/principal.js';
import { ContactPropertiesService } from '../contact-properties/contact-properties.service.js';
import type { ContactPropertyDefinition } from '../contact-properties/contact-property-definition.entity.js';
import { Transactional } from '../database/transactions.js';
import { ContactChanges } from './contact-changes.service.js';
import { ContactPropertyValuesRepository, type ContactRef } from './contact-property-values.repository.js';
import type { Contact } from './contact.entity.js';
import { PropertyRequired, ValueMissing } from './contacts.errors.js';
import { sameValue, toTypedValue, valueAsString, type TypedValue } from './property-value.js';

export type { ContactRef } from './contact-property-values.repository.js';

/** The custom property values of contacts: the specification's Set Property Value, and reads of one value for other features. */
@Injectable()
export class ContactPropertyValues {
  constructor(
    private readonly values: ContactPropertyValuesRepository,
    private readonly properties: ContactPropertiesService,
    private readonly changes: ContactChanges,
  ) {}

  /**
   * Set Property Value on Contact, rules 1-6 of the specification: update in place or add; null
   * removes the entry; required + null and a foreign select option fail with the specification's
   * messages; every actual change (and only that) goes to the audit trail, in the same transaction.
   * The contact row is locked, so concurrent sets on one contact apply one after the other.
   */
  @Transactional()
  async set(principal: Principal, contactId: string, propertyId: string, raw: unknown): Promise<Contact> {
    const definition = await this.properties.get(principal.workspaceId, propertyId);
    const contact = await this.changes.get(principal.workspaceId, contactId, { lock: true });
    if (raw === undefined) throw ValueMissing();
    if (raw === null) {
      if (definition.isRequired) throw PropertyRequired(definition.name);
      await this.apply(principal, contact, definition, null);
    } else {
      await this.apply(principal, contact, definition, toTypedValue(definition, raw));
    }
    return contact; // apply kept its modification stamps in step with the row
  }

  /** The text a contact (by id, or by number) holds in a Text or Select property; null when none (no contact, no value). */
  textOf(workspaceId: string, contact: ContactRef, propertyDefinitionId: string): Promise<string | null> {
    return this.values.textOf(workspaceId, contact, propertyDefinitionId);
  }

  private async apply(
    principal: Principal,
    contact: Contact,
    definition: ContactPropertyDefinition,
    next: TypedValue | null,
  ): Promise<void> {
    const existing = await this.values.findOf(contact.workspaceId, contact.id, definition.id);
    const previous: TypedValue | null = existing && {
      textValue: existing.textValue,
      numberValue: existing.numberValue,
      dateValue: existing.dateValue,
      selectValue: existing.selectValue,
    };
    if (sameValue(previous, next)) return; // re-setting the same value changes and records nothing
    if (next === null) {
      await this.values.delete(contact.workspaceId, { id: existing!.id });
    } else {
      await this.values.put(contact.workspaceId, contact.id, definition.id, next);
    }
    await this.changes.touch(contact, principal);
    await this.changes.record(contact, principal, [
      {
        propertyName: definition.name,
        propertyDefinitionId: definition.id,
        oldValue: valueAsString(previous),
        newValue: valueAsString(next),
      },
    ]);
  }
}
