import { isInTransaction } from './transactions.js';

/**
 * Runs independent reads: together on the pool, or one after another inside a transaction, whose
 * single connection takes one query at a time (pg deprecates queueing them on one client).
 */
export async function readAll<T extends readonly unknown[]>(reads: { [K in keyof T]: () => Promise<T[K]> }): Promise<T> {
  if (!isInTransaction()) return (await Promise.all(reads.map((read) => read()))) as unknown as T;
  const results: unknown[] = [];
  for (const read of reads) results.push(await read());
  return results as unknown as T;
}
