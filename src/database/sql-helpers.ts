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

/**
 * Deletes at most `limit` rows of `table` (keyed by `key`, `id` by default) matching `where` (its
 * parameters are `$1`…), in one short statement; rows another transaction holds locked are
 * skipped, not waited for. Returns the number deleted. For pruning jobs: call it again until it
 * deletes fewer than `limit`.
 */
export async function deleteBatch(
  manager: EntityManager,
  table: string,
  where: string,
  params: unknown[],
  limit: number,
  key = 'id',
): Promise<number> {
  const [, deleted] = await manager.query<[unknown, number]>(
    `DELETE FROM "${table}" WHERE ${key} IN (SELECT ${key} FROM "${table}" WHERE ${where} LIMIT $${params.length + 1} FOR UPDATE SKIP LOCKED)`,
    [...params, limit],
  );
  return deleted;
}
