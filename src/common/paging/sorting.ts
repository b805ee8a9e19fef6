import { ValidationError } from '../errors/domain-error.js';

export interface SortOrder {
  column: string;
  direction: 'ASC' | 'DESC';
}

/**
 * Reads `"Name DESC"` against a whitelist `{ name: 'c.name', creationtime: 'c.creation_time' }`
 * (keys lower-case). Anything else is a 400 naming the allowed fields. Only the whitelist's own keys
 * count: `__proto__` or `constructor` would otherwise name Object.prototype, which TypeORM's
 * `orderBy` takes as its map of orderings and the next `addOrderBy` writes into, for every object
 * of the process.
 */
export function parseSorting(input: string | undefined, allowed: Record<string, string>, fallback: SortOrder): SortOrder {
  if (!input || !input.trim()) return fallback;
  const match = /^\s*(\w+)(?:\s+(asc|desc))?\s*$/i.exec(input);
  const field = match?.[1].toLowerCase();
  const column = field !== undefined && Object.hasOwn(allowed, field) ? allowed[field] : undefined;
  if (!match || !column) {
    throw new ValidationError(
      'Request:InvalidSorting',
      `Sorting must be '<Field> ASC|DESC' with Field one of: ${Object.keys(allowed).join(', ')}.`,
      {
        validationErrors: [{ message: 'Unsupported sorting.', members: ['sorting'] }],
      },
    );
  }
  return { column, direction: (match[2]?.toUpperCase() as 'ASC' | 'DESC') ?? 'ASC' };
}
