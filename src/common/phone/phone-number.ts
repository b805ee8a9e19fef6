import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { Transform } from 'class-transformer';
import { IsString, Matches, MaxLength, registerDecorator, type ValidationOptions } from 'class-validator';
import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';

/**
 * Normalises an international phone number to E.164 (`+966501234567`). Accepts digits only,
 * a leading `+`, a leading `00`, spaces, dashes, dots and parentheses. Returns `undefined` when
 * the input cannot be a valid international number.
 */
export function toE164(input: string): string | undefined {
  const compact = input.trim().replace(/[\s\-().]/g, '');
  if (!/^(\+|00)?\d{6,15}$/.test(compact)) return undefined;
  const international = compact.startsWith('+') ? compact : `+${compact.replace(/^00/, '')}`;
  const parsed = parsePhoneNumberFromString(international);
  return parsed?.isValid() ? parsed.number : undefined;
}

/** The ISO region of an E.164 number (`SA`), if known. */
export function regionOf(e164: string): string | null {
  return parsePhoneNumberFromString(e164)?.country ?? null;
}

function IsInternationalPhoneNumber(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isInternationalPhoneNumber',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: `${String(propertyName)} must be a valid international phone number`, ...options },
      validator: { validate: (value: unknown) => typeof value === 'string' && value.startsWith('+') && toE164(value) === value },
    });
}

/**
 * A request field holding a phone number: validated as an international number and
 * normalised to E.164 before it reaches the service.
 */
export function PhoneNumberField(description = 'International phone number; digits only or with a leading +.') {
  return applyDecorators(
    ApiProperty({ description, example: '966501234567', type: String }),
    IsString(),
    MaxLength(32),
    Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? (toE164(value) ?? value) : value)),
    IsInternationalPhoneNumber(),
  );
}

/**
 * A list filter on phone numbers (matches numbers containing its digits). Blank is no filter, like
 * the other text filters; anything else without a digit is a 400 rather than a filter that
 * silently matches everyone.
 */
export function PhoneNumberFilterField() {
  const pattern = /^\s*$|\d/;
  return applyDecorators(
    ApiProperty({ required: false, type: String, maxLength: 32, pattern: pattern.source }),
    IsString(),
    MaxLength(32),
    Matches(pattern, { message: '$property must contain at least one digit' }),
  );
}
