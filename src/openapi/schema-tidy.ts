type Schema = Record<string, unknown>;

/**
 * Two spellings the Swagger plugin produces that OpenAPI tools read badly, rewritten in every schema:
 * - `{ allOf: [{ $ref }] }` with nothing beside it is the `$ref` itself;
 * - a `oneOf` whose branches all allow `null` (`type: [..., 'null']`) matches it more than once: only the first keeps it;
 * - an `enum` or `type` the plugin read from the TypeScript type beside a `oneOf` contradicts its branches.
 */
export function tidySchemas(schemas: Record<string, unknown>): void {
  for (const schema of Object.values(schemas)) visit(schema as Schema);
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
  if (oneOf && oneOf.length > 1 && oneOf.every(allowsNullType)) {
    for (const branch of oneOf.slice(1)) {
      const types = (branch.type as string[]).filter((type) => type !== 'null');
      branch.type = types.length === 1 ? types[0] : types;
    }
  }
  return schema;
}

const allowsNullType = (schema: Schema) => Array.isArray(schema.type) && schema.type.includes('null');
