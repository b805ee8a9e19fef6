import { buildMessage, isEmail, ValidateBy, type ValidationOptions } from 'class-validator';
import { hasUnsafeText } from './unsafe-input.js';

/**
 * class-validator's `@IsEmail()`, but never throwing: validator.js's `isEmail` calls
 * `decodeURIComponent`, which throws a URIError on an unpaired UTF-16 surrogate (a 500). Same name
 * on purpose: the Swagger plugin documents `format: email` for a decorator called `IsEmail`.
 */
export function IsEmail(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isEmail',
      validator: {
        validate: (value: unknown) => typeof value === 'string' && !hasUnsafeText(value) && isEmail(value),
        defaultMessage: buildMessage((eachPrefix) => `${eachPrefix}$property must be an email`, options),
      },
    },
    options,
  );
}
