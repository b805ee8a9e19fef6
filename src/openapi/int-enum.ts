import { IsIn, type ValidationOptions } from 'class-validator';
import { ApiProperty, type ApiPropertyOptions } from '@nestjs/swagger';

const registry = new Map<string, Record<string, string | number>>();

/** Integer values of a TypeScript enum (skipping the reverse-mapping keys). */
export function intEnumValues(enumObject: Record<string, string | number>): number[] {
  return Object.values(enumObject).filter((v): v is number => typeof v === 'number');
}

/** `1 Open, 2 Closed`. */
function describeIntEnum(enumObject: Record<string, string | number>): string {
  return intEnumValues(enumObject)
    .map((value) => `${value} ${enumObject[value]}`)
    .join(', ');
}

/**
 * An integer enum on the wire, named in OpenAPI (`enumName`) with its member names as
 * `x-enum-varnames`, so generated clients get `OutboundIvrStatus.Completed` rather than `4`.
 */
export function IntEnumProperty(
  enumObject: Record<string, string | number>,
  enumName: string,
  options: Omit<ApiPropertyOptions, 'enum' | 'enumName' | 'type'> = {},
): PropertyDecorator {
  registry.set(enumName, enumObject);
  return ApiProperty({ description: describeIntEnum(enumObject), ...options, enum: enumObject, enumName } as ApiPropertyOptions);
}

/** Adds `x-enum-varnames` and a description of the values to every registered enum schema of the document. */
export function annotateIntEnums(schemas: Record<string, Record<string, unknown>> | undefined): void {
  for (const [name, enumObject] of registry) {
    const schema = schemas?.[name];
    if (!schema) continue;
    const values = intEnumValues(enumObject);
    schema.type = 'integer';
    // Whichever property the schema factory met first may have lent it its description: say it the same way every time.
    schema.description = describeIntEnum(enumObject);
    schema.enum = values;
    schema['x-enum-varnames'] = values.map((value) => enumObject[value]);
  }
}

/**
 * Validates an integer enum value. class-validator's IsEnum also accepts the member names of a
 * numeric TypeScript enum (its reverse mapping), which the database then refuses.
 */
export function IsIntEnum(enumObject: Record<string, string | number>, options?: ValidationOptions): PropertyDecorator {
  const values = intEnumValues(enumObject);
  return IsIn(values, {
    message: ({ property }) => `${property} must be one of ${values.map((v) => `${v} ${enumObject[v]}`).join(', ')}`,
    ...options,
  });
}
