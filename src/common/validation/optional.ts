import { applyDecorators } from '@nestjs/common';
import { buildMessage, ValidateBy, ValidateIf } from 'class-validator';

/**
 * An optional request field whose value cannot be null (`name?: string`): absent, it is left out;
 * `null` is a 400 `<field> must not be null` rather than passing validation and reaching a NOT NULL
 * column or a `.trim()`. Nullable fields (`icon?: string | null`, where null clears the value) keep
 * class-validator's `@IsOptional()`, which lets null through.
 */
export function IsOptionalNotNull(): PropertyDecorator {
  return applyDecorators(
    ValidateIf((_object, value: unknown) => value !== undefined),
    ValidateBy({
      name: 'isNotNull',
      validator: {
        validate: (value: unknown) => value !== null,
        defaultMessage: buildMessage((eachPrefix) => `${eachPrefix}$property must not be null`),
      },
    }),
  );
}
