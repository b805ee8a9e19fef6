import type { ContactPropertyDefinition } from '../contact-properties/contact-property-definition.entity.js';
import { ContactPropertyType } from '../contact-properties/contact-property-type.js';
import { parseIsoDateTime } from '../common/time/iso-date-time.js';
import { TimestampFormat } from '../common/time/timestamp-format.js';
import { InvalidPropertyValue, InvalidSelectOption } from './contacts.errors.js';

/** A value in the column of its type; the other columns null. `numberValue` is a canonical decimal string. */
export interface TypedValue {
  textValue: string | null;
  numberValue: string | null;
  dateValue: Date | null;
  selectValue: string | null;
}

const MAX_TEXT = 4000;
const DECIMAL = /^[-+]?(\d+(\.\d*)?|\.\d+)$/;

/**
 * Reads a request value as the property's type. Text, Number and Date have no rule beyond
 * being readable as their type (specification rule 5); Select must be one of the options
 * (rule 4, its message to the letter).
 */
export function toTypedValue(definition: ContactPropertyDefinition, raw: unknown): TypedValue {
  const empty: TypedValue = { textValue: null, numberValue: null, dateValue: null, selectValue: null };
  switch (definition.type) {
    case ContactPropertyType.Text:
      if (typeof raw !== 'string' || raw.length > MAX_TEXT)
        throw InvalidPropertyValue(definition.name, `a string of at most ${MAX_TEXT} characters`);
      return { ...empty, textValue: raw };
    case ContactPropertyType.Number:
      return { ...empty, numberValue: canonicalDecimal(definition.name, raw) };
    case ContactPropertyType.Date:
      return { ...empty, dateValue: parseDate(definition.name, raw) };
    case ContactPropertyType.Select: {
      const option = definition.selectOptions.find((o) => o.value === raw);
      if (!option) throw InvalidSelectOption(typeof raw === 'string' ? raw : JSON.stringify(raw), definition.name);
      return { ...empty, selectValue: option.value };
    }
  }
}

/** The value as the history records it: plain decimals, ISO dates without offset, text as is. */
export function valueAsString(value: TypedValue | null): string | null {
  if (!value) return null;
  if (value.dateValue) return TimestampFormat.noOffset(value.dateValue);
  return value.textValue ?? value.numberValue ?? value.selectValue;
}

export function sameValue(a: TypedValue | null, b: TypedValue | null): boolean {
  return valueAsString(a) === valueAsString(b);
}

/** `12.50`, `"12.5"`, `12.5` → `"12.5"`; exponents and non-numbers are refused rather than guessed at. */
export function canonicalDecimal(name: string, raw: unknown): string {
  let text: string;
  if (typeof raw === 'number' && Number.isFinite(raw))
    text = raw.toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 20 });
  else if (typeof raw === 'string' && DECIMAL.test(raw.trim())) text = raw.trim();
  else throw InvalidPropertyValue(name, 'a decimal number');
  const negative = text.startsWith('-');
  let [whole, fraction = ''] = text.replace(/^[-+]/, '').split('.');
  whole = whole.replace(/^0+(?=\d)/, '') || '0';
  fraction = fraction.replace(/0+$/, '');
  if (whole.length + fraction.length > 60) throw InvalidPropertyValue(name, 'a decimal number of at most 60 digits');
  const digits = fraction ? `${whole}.${fraction}` : whole;
  return negative && digits !== '0' ? `-${digits}` : digits;
}

function parseDate(name: string, raw: unknown): Date {
  const date = typeof raw === 'string' ? parseIsoDateTime(raw) : undefined;
  if (!date) throw InvalidPropertyValue(name, 'an ISO 8601 date or date-time');
  return date;
}
