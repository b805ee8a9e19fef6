import { IsIn, type ValidationOptions } from 'class-validator';
import { ApiProperty, type ApiPropertyOptions } from '@nestjs/swagger';

const registry = new Map<string, Record<string, string | number>>();

/** Integer values of a TypeScript enum (skipping the reverse-mapping keys). */
export function intEnumValues(enumObject: Record<string, string | number>): number[] {
  return Object.values(enumObject).filter((v): v is number => typeof v === 'number');
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
  const description = intEnumValues(enumObject)
    .map((value) => `${value} ${enumObject[value]}`)
    .join(', ');
  return ApiProperty({ description, ...options, enum: enumObject, enumName } as ApiPropertyOptions);
}

/**
 * A nullable reference (`allOf: [$ref]` + `nullable`) needs a `type` beside it in OpenAPI 3.0:
 * give such properties the type of the integer enum they point to.
 */
export function typeNullableEnumReferences(schemas: Record<string, Record<string, unknown>> | undefined): void {
  for (const schema of Object.values(schemas ?? {})) {
    for (const property of Object.values((schema.properties ?? {}) as Record<string, Record<string, unknown>>)) {
      const ref = (property.allOf as Array<{ $ref?: string }> | undefined)?.[0]?.$ref?.split('/').pop();
      if (property.nullable && ref && registry.has(ref) && !property.type) property.type = 'integer';
    }
  }
}

/** Adds `x-enum-varnames` to every registered enum schema of the document. */
export function annotateIntEnums(schemas: Record<string, Record<string, unknown>> | undefined): void {
  for (const [name, enumObject] of registry) {
    const schema = schemas?.[name];
    if (!schema) continue;
    const values = intEnumValues(enumObject);
    schema.type = 'integer';
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
