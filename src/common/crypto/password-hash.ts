import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

// scrypt with N=2^15 costs ~50 ms and 32 MiB per check: slow for guessing, fine for token requests.
const PARAMS: ScryptOptions = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEY_LENGTH = 32;

function derive(secret: string, salt: Buffer, length: number, params: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => scrypt(secret, salt, length, params, (err, key) => (err ? reject(err) : resolve(key))));
}

/** Hashes a secret for storage: `scrypt$N$r$p$salt$hash`. */
export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(secret, salt, KEY_LENGTH, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64'), key.toString('base64')].join('$');
}

/** Checks a secret against a stored hash in constant time. */
export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const params = { N: Number(n), r: Number(r), p: Number(p), maxmem: PARAMS.maxmem };
  const actual = await derive(secret, Buffer.from(salt, 'base64'), expected.length, params);
  return timingSafeEqual(actual, expected);
}
