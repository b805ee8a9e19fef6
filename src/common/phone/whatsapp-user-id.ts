import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsString, Matches, MaxLength, registerDecorator } from 'class-validator';
import { toE164 } from './phone-number.js';

/**
 * A WhatsApp business-scoped user id (BSUID, Meta's usernames, 2026): a two-letter country code,
 * a dot, optionally `ENT.` (a parent BSUID shared across portfolios), then 1-128 letters and digits,
 * e.g. `US.13491208655302741918`.
 */
export const WHATSAPP_USER_ID_PATTERN = /^[A-Z]{2}\.(ENT\.)?[A-Za-z0-9]{1,128}$/;

export function isWhatsAppUserId(value: string): boolean {
  return WHATSAPP_USER_ID_PATTERN.test(value);
}

/** A request field holding a BSUID, checked for its form. */
export function WhatsAppUserIdField(description = 'WhatsApp business-scoped user id (BSUID), e.g. US.13491208655302741918.') {
  return applyDecorators(
    ApiProperty({ description, example: 'US.13491208655302741918', type: String, required: false }),
    IsString(),
    Matches(WHATSAPP_USER_ID_PATTERN, { message: '$property must be a WhatsApp user id like US.13491208655302741918' }),
  );
}

/** A phone number (normalised to E.164) or a BSUID (kept as it is). */
function IsPhoneNumberOrWhatsAppUserId(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isPhoneNumberOrWhatsAppUserId',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: `${String(propertyName)} must be a valid international phone number or a WhatsApp user id (BSUID)` },
      validator: {
        validate: (value: unknown) =>
          typeof value === 'string' && (isWhatsAppUserId(value) || (value.startsWith('+') && toE164(value) === value)),
      },
    });
}

/** A request field holding a phone number (normalised to E.164) or a WhatsApp user id (BSUID). */
export function PhoneNumberOrWhatsAppUserIdField(description: string, required = true) {
  return applyDecorators(
    ApiProperty({ description, example: '966501234567', type: String, required }),
    IsString(),
    MaxLength(150),
    Transform(({ value }: { value: unknown }) =>
      typeof value === 'string' && !isWhatsAppUserId(value) ? (toE164(value) ?? value) : value,
    ),
    IsPhoneNumberOrWhatsAppUserId(),
  );
}
