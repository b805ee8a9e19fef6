import { IsIn, IsOptional, IsString, IsUrl, MaxLength, MinLength, registerDecorator, type ValidationOptions } from 'class-validator';

export const IVR_DIGITS = ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '*', '#'] as const;
export type IvrDigit = (typeof IVR_DIGITS)[number];

export const HTTP_URL = { require_protocol: true, protocols: ['http', 'https'], require_tld: false };

/** One selectable key of an IVR question. */
export class OutboundIvrOption {
  /** The key: 0-9, * or #. */
  @IsIn(IVR_DIGITS, { message: 'digit must be one of 0-9, * or #' }) digit: string;
  @IsString() @MinLength(1) @MaxLength(500) description: string;
  /** Audio played when this key is pressed, instead of the success file. */
  @IsOptional() @IsUrl(HTTP_URL) @MaxLength(2048) responseMessageFileUrl?: string | null;
}

/** An array of `{ digit }` objects in which no digit repeats. */
export function UniqueDigits(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'uniqueDigits',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: `${String(propertyName)} must not repeat a digit`, ...options },
      validator: {
        validate(value: unknown) {
          if (!Array.isArray(value)) return true;
          const digits = value.map((option: { digit?: unknown } | null) => option?.digit);
          return new Set(digits).size === digits.length;
        },
      },
    });
}
