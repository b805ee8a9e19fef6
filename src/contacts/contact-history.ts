import type { Contact } from './contact.entity.js';
import type { ContactHistoryEntry } from './contact-history-entry.entity.js';

/** Built-in fields whose changes the audit trail records, with how each reads as a string. */
const AUDITED_FIELDS = {
  Name: (c: Partial<Contact>) => c.name ?? null,
  PhoneNumber: (c: Partial<Contact>) => c.phoneNumber ?? null,
  WhatsAppUserId: (c: Partial<Contact>) => c.whatsAppUserId ?? null,
  Email: (c: Partial<Contact>) => c.email ?? null,
  Company: (c: Partial<Contact>) => c.company ?? null,
  Position: (c: Partial<Contact>) => c.position ?? null,
  ContactType: (c: Partial<Contact>) => (c.contactType === undefined || c.contactType === null ? null : String(c.contactType)),
} as const;

export type HistoryChange = Pick<ContactHistoryEntry, 'propertyName' | 'propertyDefinitionId' | 'oldValue' | 'newValue'>;

/** History entries for the built-in fields that differ between two states of a contact ({} before creation). */
export function builtInChanges(before: Partial<Contact>, after: Partial<Contact>): HistoryChange[] {
  return Object.entries(AUDITED_FIELDS)
    .map(([propertyName, read]) => ({ propertyName, propertyDefinitionId: null, oldValue: read(before), newValue: read(after) }))
    .filter((change) => change.oldValue !== change.newValue);
}
