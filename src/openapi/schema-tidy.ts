import type { OpenAPIObject } from '@nestjs/swagger';

type Schema = Record<string, unknown>;

/**
 * Two spellings the Swagger plugin produces that OpenAPI tools read badly, rewritten in every schema:
 * - `{ allOf: [{ $ref }] }` with nothing beside it is the `$ref` itself;
 * - a `oneOf` whose branches are all `nullable` matches `null` more than once: only the first keeps it;
 * - an `enum` or `type` the plugin read from the TypeScript type beside a `oneOf` contradicts its branches.
 */
export function tidySchemas(document: OpenAPIObject): void {
  for (const schema of Object.values(document.components?.schemas ?? {})) visit(schema as Schema);
}

function visit(schema: Schema): void {
  const properties = schema.properties as Record<string, Schema> | undefined;
  if (properties) {
    for (const [name, property] of Object.entries(properties)) {
      properties[name] = tidy(property);
      visit(properties[name]);
    }
  }
  if (schema.items && typeof schema.items === 'object') {
    schema.items = tidy(schema.items as Schema);
    visit(schema.items as Schema);
  }
  for (const key of ['oneOf', 'anyOf', 'allOf'] as const) (schema[key] as Schema[] | undefined)?.forEach(visit);
}

function tidy(schema: Schema): Schema {
  const allOf = schema.allOf as Schema[] | undefined;
  if (allOf?.length === 1 && Object.keys(schema).length === 1) return allOf[0];
  const oneOf = schema.oneOf as Schema[] | undefined;
  if (oneOf) {
    delete schema.enum;
    delete schema.type;
  }
  if (oneOf && oneOf.length > 1 && oneOf.every((branch) => branch.nullable === true)) {
    oneOf.slice(1).forEach((branch) => delete branch.nullable);
  }
  return schema;
}
