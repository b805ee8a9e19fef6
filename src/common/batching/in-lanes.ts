/**
 * Runs `work` on every item with at most `lanes` at once; the results in the items' order. An error
 * rejects once the work under way has ended (no item starts after it).
 */
export async function inLanes<T, R>(items: readonly T[], lanes: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lane = async () => {
    while (next < items.length && !failure) {
      const index = next++;
      try {
        results[index] = await work(items[index]);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(lanes, items.length) }, lane));
  if (failure) throw failure.error;
  return results;
}
