import { newId } from '../common/id.js';
import type { JsonSchema } from './webhook-event-catalog.js';

/**
 * A sample value that fits a JSON Schema of the catalog (the test event's `data`): every property
 * present, strings by their format, the first enum value, one item per array, and a value rather
 * than null where null is allowed, so that a receiver sees every field filled.
 */
export function sampleOf(schema: JsonSchema, defs: Record<string, JsonSchema>, depth = 0): unknown {
  if (depth > 8) return null;
  if (typeof schema.$ref === 'string') return sampleOf(defs[schema.$ref.replace('#/$defs/', '')] ?? {}, defs, depth + 1);
  if (Array.isArray(schema.anyOf)) return sampleOf(schema.anyOf[0] as JsonSchema, defs, depth + 1);
  if (Array.isArray(schema.allOf)) return sampleOf(schema.allOf[0] as JsonSchema, defs, depth + 1);
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const type = Array.isArray(schema.type) ? (schema.type as string[]).find((t) => t !== 'null') : (schema.type as string | undefined);
  switch (type) {
    case 'string':
      return stringSample(schema.format as string | undefined);
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean':
      return true;
    case 'array':
      return [sampleOf((schema.items as JsonSchema | undefined) ?? {}, defs, depth + 1)];
    default: {
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      return Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, sampleOf(property, defs, depth + 1)]));
    }
  }
}

function stringSample(format: string | undefined): string {
  if (format === 'uuid') return newId();
  if (format === 'date-time') return new Date().toISOString();
  if (format === 'uri') return 'https://example.com/sample';
  return 'sample';
}
