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
