import VCard from 'vcf';
import { toE164 } from '../common/phone/phone-number.js';

export interface ParsedCard {
  name: string;
  phoneNumber: string;
  email: string | null;
  company: string | null;
  position: string | null;
}

type CardResult = { ok: true; card: ParsedCard } | { ok: false; message: string };

type VCardProperty = { valueOf(): string; waid?: string; type?: string | string[] };

function first(card: VCard, name: string): VCardProperty | undefined {
  const value = card.get(name) as VCardProperty | VCardProperty[] | undefined;
  return Array.isArray(value) ? value[0] : value;
}

function all(card: VCard, name: string): VCardProperty[] {
  const value = card.get(name) as VCardProperty | VCardProperty[] | undefined;
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

function text(value: string | undefined, max: number): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed.slice(0, max) : null;
}

/**
 * Reads one vCard (2.1, 3.0 or 4.0): the name from FN, else N; the phone from the TEL that
 * carries a WhatsApp id (`waid`), else the first TEL; EMAIL; ORG as company; TITLE as position.
 */
export function parseVCard(source: string): CardResult {
  let card: VCard;
  try {
    // The parser wants CRLF line breaks; cards pasted or exported elsewhere often have LF only.
    card = new VCard().parse(source.trim().replace(/\r?\n/g, '\r\n'));
  } catch (err) {
    return { ok: false, message: `Not a readable vCard: ${(err as Error).message}` };
  }
  const structuredName = first(card, 'n')
    ?.valueOf()
    .split(';')
    .slice(0, 2)
    .reverse()
    .map((part) => part.trim())
    .filter(Boolean)
    .join(' ');
  const name = text(first(card, 'fn')?.valueOf(), 200) ?? text(structuredName, 200);
  if (!name) return { ok: false, message: 'The vCard has no name (FN or N).' };
  const phones = all(card, 'tel');
  const whatsApp = phones.find((tel) => tel.waid);
  const rawPhone = whatsApp?.waid ?? phones[0]?.valueOf().replace(/^tel:/i, '');
  if (!rawPhone) return { ok: false, message: 'The vCard has no phone number (TEL).' };
  const phoneNumber = toE164(rawPhone);
  if (!phoneNumber) return { ok: false, message: `'${rawPhone}' is not a valid international phone number.` };
  return {
    ok: true,
    card: {
      name,
      phoneNumber,
      email: text(first(card, 'email')?.valueOf(), 320),
      company: text(first(card, 'org')?.valueOf().split(';')[0], 200),
      position: text(first(card, 'title')?.valueOf(), 200),
    },
  };
}
