import { ValidationPipe, type ValidationError as ClassValidatorError } from '@nestjs/common';
import { ValidationError, type ValidationErrorItem } from '../errors/domain-error.js';

/** Flattens nested class-validator errors into `{ message, members: ['items[0].digit'] }`. */
export function flattenValidationErrors(errors: ClassValidatorError[], parent = ''): ValidationErrorItem[] {
  return errors.flatMap((error) => {
    const path = parent ? (/^\d+$/.test(error.property) ? `${parent}[${error.property}]` : `${parent}.${error.property}`) : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) => ({ message, members: [path] }));
    return [...own, ...flattenValidationErrors(error.children ?? [], path)];
  });
}

/** The one global validation pipe: transforms to DTO classes, strips unknown properties, answers 400 in the envelope. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    transform: true,
    whitelist: true,
    forbidUnknownValues: true,
    transformOptions: { enableImplicitConversion: false, exposeDefaultValues: true },
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => {
      const items = flattenValidationErrors(errors);
      const message = items.length > 0 ? items.map((item) => item.message).join('; ') : 'The request is invalid.';
      return new ValidationError('Request:ValidationFailed', message, { validationErrors: items });
    },
  });
}
