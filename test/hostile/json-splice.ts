/** Where a value sits in a JSON document: property names and array indexes. */
export type JsonPath = Array<string | number>;

const MARKER = '__hostile_value_marker_5f0c2e__';

/** Every property path of `value` (objects and arrays, depth-first), leaves and containers alike. */
export function pathsOf(value: unknown, prefix: JsonPath = []): JsonPath[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => [[...prefix, index], ...pathsOf(item, [...prefix, index])]);
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => [[...prefix, key], ...pathsOf(item, [...prefix, key])]);
  }
  return [];
}

export function valueAt(value: unknown, path: JsonPath): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string | number, unknown> | undefined)?.[key], value);
}

/** `document` as JSON text with the value at each path replaced by raw JSON text (a path under an earlier replaced one is skipped). */
export function spliceJson(document: unknown, ...changes: Array<{ path: JsonPath; json: string }>): string {
  if (changes.some(({ path }) => path.length === 0)) return changes.find(({ path }) => path.length === 0)!.json;
  const copy = structuredClone(document) as Record<string | number, unknown>;
  const applied: string[] = [];
  changes.forEach(({ path, json }, index) => {
    const parent = valueAt(copy, path.slice(0, -1));
    if (parent === null || typeof parent !== 'object') return;
    (parent as Record<string | number, unknown>)[path[path.length - 1]] = `${MARKER}${index}`;
    applied[index] = json;
  });
  return applied.reduce((text, json, index) => text.split(`"${MARKER}${index}"`).join(json), JSON.stringify(copy));
}

export function withoutPath(document: unknown, path: JsonPath): string {
  const copy = structuredClone(document) as Record<string | number, unknown>;
  const parent = valueAt(copy, path.slice(0, -1)) as Record<string | number, unknown> | unknown[];
  const key = path[path.length - 1];
  if (Array.isArray(parent) && typeof key === 'number') parent.splice(key, 1);
  else delete (parent as Record<string | number, unknown>)[key];
  return JSON.stringify(copy);
}

export const formatPath = (path: JsonPath) =>
  path.reduce<string>((text, key) => (typeof key === 'number' ? `${text}[${key}]` : text ? `${text}.${key}` : key), '') || '(body)';
