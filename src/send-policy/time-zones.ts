import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

/**
 * The one zone a phone number's country stands for. Most countries have one zone, which ICU names
 * (`Intl.Locale#getTimeZones`). A country with several zones maps to the zone of its capital: a
 * phone number alone cannot tell which part of the country the contact lives in (libphonenumber-js
 * has no area-code geocoding), so every number of it gets the capital's. The capital's zone of every
 * region ICU gives several zones (or none) to is listed here.
 */
const CAPITAL_ZONES: Readonly<Record<string, string>> = {
  AC: 'Atlantic/St_Helena',
  AR: 'America/Argentina/Buenos_Aires',
  AU: 'Australia/Sydney',
  BR: 'America/Sao_Paulo',
  CA: 'America/Toronto',
  CD: 'Africa/Kinshasa',
  CL: 'America/Santiago',
  CN: 'Asia/Shanghai',
  CY: 'Asia/Nicosia',
  DE: 'Europe/Berlin',
  EC: 'America/Guayaquil',
  ES: 'Europe/Madrid',
  FM: 'Pacific/Pohnpei',
  GL: 'America/Nuuk',
  ID: 'Asia/Jakarta',
  KI: 'Pacific/Tarawa',
  KZ: 'Asia/Almaty',
  MH: 'Pacific/Majuro',
  MN: 'Asia/Ulaanbaatar',
  MX: 'America/Mexico_City',
  MY: 'Asia/Kuala_Lumpur',
  NZ: 'Pacific/Auckland',
  PF: 'Pacific/Tahiti',
  PG: 'Pacific/Port_Moresby',
  PS: 'Asia/Hebron',
  PT: 'Europe/Lisbon',
  RU: 'Europe/Moscow',
  TA: 'Atlantic/St_Helena',
  UA: 'Europe/Kyiv',
  US: 'America/New_York',
  UZ: 'Asia/Tashkent',
  XK: 'Europe/Belgrade',
};

/** `Intl.Locale#getTimeZones` (Node 24), or the `timeZones` getter older V8 had. */
interface LocaleWithZones {
  getTimeZones?: () => string[] | undefined;
  timeZones?: string[];
}

const zoneByRegion = new Map<string, string | null>();

/** Whether `name` is a time zone this runtime knows (IANA names and their aliases, any case). */
export function isTimeZone(name: string): boolean {
  if (name.trim() === '' || name.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The zone of a country (ISO 3166 alpha-2, as libphonenumber names regions), or null when none is known. */
export function zoneOfRegion(region: string): string | null {
  const known = zoneByRegion.get(region);
  if (known !== undefined) return known;
  const locale = new Intl.Locale(`und-${region}`) as unknown as LocaleWithZones;
  const zones = locale.getTimeZones?.() ?? locale.timeZones ?? [];
  const zone = CAPITAL_ZONES[region] ?? (zones.length > 0 ? zones[0] : null);
  const checked = zone && isTimeZone(zone) ? zone : null;
  zoneByRegion.set(region, checked);
  return checked;
}

/**
 * The zone of an E.164 number's country, or null (no country, e.g. a non-geographic +800 number).
 * A number that fits no region's plan exactly takes its calling code's main country (+44 → GB).
 */
export function zoneOfPhoneNumber(phoneNumber: string): string | null {
  const parsed = parsePhoneNumberFromString(phoneNumber);
  const region = parsed && (parsed.country ?? parsed.getPossibleCountries()[0]);
  return region ? zoneOfRegion(region) : null;
}
