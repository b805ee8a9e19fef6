import { applyDecorators } from '@nestjs/common';
import { IsObject, ValidateNested } from 'class-validator';

/**
 * `@ValidateNested()` that also requires an object (with `each`, every item an object):
 * class-validator validates the items of an array found where a nested object should be, so
 * `steps: [[]]` passed as a valid step and reached the service without a `props`.
 */
export function ValidateNestedObject(options: { each?: boolean } = {}): PropertyDecorator {
  return applyDecorators(
    IsObject({ each: options.each, message: `${options.each ? 'each value in ' : ''}$property must be an object` }),
    ValidateNested(options),
  );
}
