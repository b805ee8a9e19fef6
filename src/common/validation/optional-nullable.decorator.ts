import { IsOptional } from 'class-validator';

/**
 * An input field that may be absent or null (null clears it): its other validators apply only to
 * a value. class-validator's `IsOptional` already skips both undefined and null, so this is the one
 * decorator for the `@IsOptional() @ValidateIf((_, v) => v !== null)` pair; the OpenAPI document
 * shows the field as nullable from its `| null` type (the swagger CLI plugin).
 */
export function OptionalNullable(): PropertyDecorator {
  return IsOptional();
}
