import type { Destination } from '../../send-policy/send-recipient.js';

/** The earliest inbound message that still keeps the customer service window (24 h) open now. */
export const serviceWindowStart = () => new Date(Date.now() - 24 * 3600 * 1000);

/** The Cloud API's addressing (API.md §7.1): `to` the number when the contact has one, else `recipient` the BSUID. */
export function addressOf(destination: Destination): { to: string } | { recipient: string } {
  const digits = (e164: string) => e164.replace(/^\+/, '');
  if (destination.kind === 'phone') return { to: digits(destination.phoneNumber) };
  if (destination.kind === 'new-user-id') return { recipient: destination.userId };
  const { phoneNumber, whatsAppUserId } = destination.contact;
  return phoneNumber ? { to: digits(phoneNumber) } : { recipient: whatsAppUserId! };
}

/** A message body addressed to the destination: the addressing fields replaced, in Meta's order. */
export function addressed(request: Record<string, unknown>, address: { to: string } | { recipient: string }): Record<string, unknown> {
  const { messaging_product, recipient_type, to: _to, recipient: _recipient, ...content } = request;
  return { messaging_product, recipient_type, ...address, ...content };
}

/** Whom a Cloud API message body goes to (`to` or `recipient`), for the pair rate. */
export function recipientOf(request: Record<string, unknown>): string | null {
  const to = request.to ?? request.recipient;
  return typeof to === 'string' && to ? to : null;
}
