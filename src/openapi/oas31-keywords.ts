/**
 * What @nestjs/swagger's 3.1 mode (`setOpenAPIVersion('3.1.0')`) leaves in OpenAPI 3.0 form: it
 * rewrites `nullable` itself, not the other keywords JSON Schema 2020-12 spells differently. In every
 * schema of a document (or of a set of component schemas):
 * - `example` becomes `examples: [example]` (2020-12 has no `example`);
 * - a boolean `exclusiveMinimum`/`exclusiveMaximum` becomes the number it excludes.
 * Media types, parameters and headers keep their own `example`/`examples`, which 3.1 still has.
 */

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Keys whose value is data (never a schema or a document part to walk). */
const DATA_KEYS = new Set(['example', 'examples', 'default', 'const', 'enum']);
/** Keys of a schema whose value is one schema, a list of them, or a map of them by name. */
const ONE_SCHEMA = ['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedItems'];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'dependentSchemas'];

/** Rewrites every schema of an OpenAPI document in place. */
export function useJsonSchema2020Keywords(document: object): void {
  walkDocument(document);
}

/** Rewrites a map of schemas (components, `$defs`) in place. */
export function useJsonSchema2020KeywordsIn(schemas: Record<string, unknown>): void {
  for (const schema of Object.values(schemas)) rewriteSchema(schema);
}

function walkDocument(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(walkDocument);
  if (!isObject(node)) return;
  for (const [key, value] of Object.entries(node)) {
    if (DATA_KEYS.has(key) || key.startsWith('x-')) continue;
    if (key === 'schema') rewriteSchema(value);
    else if (key === 'schemas' && isObject(value)) useJsonSchema2020KeywordsIn(value);
    else walkDocument(value);
  }
}

function rewriteSchema(schema: unknown): void {
  if (!isObject(schema)) return;
  if ('example' in schema) {
    if (!Array.isArray(schema.examples)) schema.examples = [schema.example];
    delete schema.example;
  }
  numericBound(schema, 'exclusiveMinimum', 'minimum');
  numericBound(schema, 'exclusiveMaximum', 'maximum');
  for (const key of ONE_SCHEMA) rewriteSchema(schema[key]);
  for (const key of SCHEMA_LISTS) if (Array.isArray(schema[key])) (schema[key] as unknown[]).forEach(rewriteSchema);
  for (const key of SCHEMA_MAPS) if (isObject(schema[key])) Object.values(schema[key]).forEach(rewriteSchema);
}

/** 3.0's `{ minimum: 0, exclusiveMinimum: true }` is 2020-12's `{ exclusiveMinimum: 0 }`. */
function numericBound(schema: Json, exclusive: 'exclusiveMinimum' | 'exclusiveMaximum', inclusive: 'minimum' | 'maximum'): void {
  if (typeof schema[exclusive] !== 'boolean') return;
  if (schema[exclusive] && typeof schema[inclusive] === 'number') {
    schema[exclusive] = schema[inclusive];
    delete schema[inclusive];
  } else delete schema[exclusive];
}
