import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { isURL, registerDecorator, type ValidationArguments, type ValidationOptions } from 'class-validator';

/** http(s) URLs the provider fetches (no TLD needed: tests and private networks use host names). */
export const HTTP_URL = { require_protocol: true, protocols: ['http', 'https'], require_tld: false };

const present = (value: unknown) => value !== undefined && value !== null;

/**
 * A media send's URL field, given instead of `mediaId`: exactly one of the two must be present
 * (`Give exactly one of imageUrl and mediaId.`), and when this one is, it is an http(s) URL of at
 * most 2048 characters.
 */
export function MediaUrlOr(other: string, options?: ValidationOptions): PropertyDecorator {
  return applyDecorators(ApiPropertyOptional({ type: String, format: 'uri', maxLength: 2048 }), mediaUrlOr(other, options));
}

function mediaUrlOr(other: string, options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) => {
    const property = String(propertyName);
    const oneOf = (args: ValidationArguments) => present(args.value) !== present((args.object as Record<string, unknown>)[other]);
    registerDecorator({
      name: 'mediaUrlOr',
      target: target.constructor,
      propertyName: property,
      options,
      validator: {
        validate: (value: unknown, args: ValidationArguments) =>
          oneOf(args) && (!present(value) || (typeof value === 'string' && value.length <= 2048 && isURL(value, HTTP_URL))),
        defaultMessage: (args: ValidationArguments) =>
          oneOf(args) ? `${property} must be an http(s) URL of at most 2048 characters` : `Give exactly one of ${property} and ${other}.`,
      },
    });
  };
}

// Emoji as Unicode defines them for interchange (sequences, flags, skin tones, keycaps), plus a lone
// pictographic code point with or without its emoji presentation selector (❤ as well as ❤️).
const RGI_EMOJI = new RegExp('^\\p{RGI_Emoji}$', 'v');
const PICTOGRAPH = /^\p{Extended_Pictographic}\uFE0F?$/u;

/** One emoji, or "" (which removes a reaction). */
export function isReactionEmoji(value: unknown): boolean {
  return typeof value === 'string' && (value === '' || RGI_EMOJI.test(value) || PICTOGRAPH.test(value));
}

export function IsReactionEmoji(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isReactionEmoji',
      target: target.constructor,
      propertyName: String(propertyName),
      options: { message: `${String(propertyName)} must be a single emoji, or "" to remove the reaction`, ...options },
      validator: { validate: isReactionEmoji },
    });
}
