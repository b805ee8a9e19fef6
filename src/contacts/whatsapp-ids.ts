import type { Contact } from './contact.entity.js';

/** How WhatsApp names a person: the number and the business-scoped user ids, each when known. */
export interface WhatsAppIds {
  phoneNumber: string | null;
  userId: string | null;
  parentUserId?: string | null;
}

/** Among `found`, the contact with the sender's number, and the one with its BSUID (else its parent BSUID). They may be the same contact. */
export function whatsAppMatchesAmong(found: readonly Contact[], ids: WhatsAppIds): { byPhone: Contact | null; byUser: Contact | null } {
  const { phoneNumber, userId, parentUserId } = ids;
  return {
    byPhone: (phoneNumber && found.find((c) => c.phoneNumber === phoneNumber)) || null,
    byUser:
      (userId && found.find((c) => c.whatsAppUserId === userId)) ||
      (parentUserId && found.find((c) => c.whatsAppParentUserId === parentUserId)) ||
      null,
  };
}
