import Redis from 'ioredis';

/**
 * Deletes every key under `prefix` (`prefix:*`) on the shared Redis, so a test run leaves nothing
 * behind. SCAN walks the keyspace without blocking other users of the server; UNLINK frees in the
 * background.
 */
export async function deleteRedisKeys(prefix: string, url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'): Promise<number> {
  if (!/^msg(test|bench):[\w:-]+$/.test(prefix)) throw new Error(`Refusing to delete keys under an unexpected prefix: ${prefix}`);
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2, retryStrategy: () => null });
  let deleted = 0;
  try {
    await redis.connect();
    for await (const keys of redis.scanStream({ match: `${prefix}:*`, count: 500 }) as AsyncIterable<string[]>) {
      if (keys.length > 0) deleted += await redis.unlink(...keys);
    }
  } finally {
    redis.disconnect();
  }
  return deleted;
}
