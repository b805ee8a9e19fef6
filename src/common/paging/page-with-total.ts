import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import type { PagedResult } from './paged-result.js';

/**
 * One page and the total number of matches in one query (`count(*) OVER ()`): the database finds
 * every match anyway to sort them, so a second counting query would do that work twice. Only a
 * page past the last match needs a separate count.
 */
export async function pageWithTotal<T extends ObjectLiteral>(
  qb: SelectQueryBuilder<T>,
  skip: number,
  take: number,
): Promise<PagedResult<T>> {
  const { entities, raw } = await qb
    .clone()
    .addSelect('count(*) OVER ()', 'total_count')
    .skip(skip)
    .take(take)
    .getRawAndEntities<{ total_count: string }>();
  if (raw.length > 0) return { totalCount: Number(raw[0].total_count), items: entities };
  return { totalCount: skip > 0 ? await qb.getCount() : 0, items: [] };
}
