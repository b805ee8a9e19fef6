import type { Contact } from '../contacts/contact.entity.js';
import type { ContactRef } from '../contacts/contact-property-values.service.js';

/** Where a send goes, once resolved: a number (its contact found or created with the send), a contact, or a BSUID no contact has yet. */
export type Destination =
  { kind: 'phone'; phoneNumber: string } | { kind: 'contact'; contact: Contact } | { kind: 'new-user-id'; userId: string };

/** How the answer names the recipient. */
export function labelOf(destination: Destination): string {
  if (destination.kind === 'phone') return destination.phoneNumber;
  if (destination.kind === 'new-user-id') return destination.userId;
  return destination.contact.phoneNumber ?? destination.contact.whatsAppUserId ?? destination.contact.id;
}

/** Whose time zone a send follows: the contact's (by id) or the number's. */
export function zoneSubjectOf(destination: Destination): ContactRef {
  if (destination.kind === 'contact') return { contactId: destination.contact.id, phoneNumber: destination.contact.phoneNumber };
  return { phoneNumber: destination.kind === 'phone' ? destination.phoneNumber : null };
}
