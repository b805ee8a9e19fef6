import type { EntityManager, EntityTarget, ObjectLiteral, QueryDeepPartialEntity } from 'typeorm';

/**
 * `text` as a LIKE/ILIKE pattern matching it anywhere (or, with `'prefix'`, at the start), its `%`,
 * `_` and `\` taken literally.
 */
export function likePattern(text: string, match: 'anywhere' | 'prefix' = 'anywhere'): string {
  const escaped = text.replace(/[\\%_]/g, '\\$&');
  return match === 'prefix' ? `${escaped}%` : `%${escaped}%`;
}

/**
 * Inserts rows, skipping those that conflict with an existing row on any unique constraint
 * (`ON CONFLICT DO NOTHING`). Returns the `returning` column (the id by default) of the rows
 * actually inserted, so the caller can tell a new row from one already there.
 */
export async function insertIgnoring<E extends ObjectLiteral>(
  manager: EntityManager,
  entity: EntityTarget<E>,
  rows: QueryDeepPartialEntity<E>[],
  returning = 'id',
): Promise<string[]> {
  if (rows.length === 0) return [];
  const result = await manager.createQueryBuilder().insert().into(entity).values(rows).orIgnore().returning([returning]).execute();
  return (result.raw as Array<Record<string, string>>).map((row) => row[returning]);
}
