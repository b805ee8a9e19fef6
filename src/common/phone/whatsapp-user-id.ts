import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches } from 'class-validator';

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
