import { timingSafeEqual, createHash } from 'node:crypto';

/**
 * Checks an `Authorization` header against the admin key: `Bearer <key>`, or HTTP Basic with the
 * key as password (so a browser can open the queue dashboard).
 */
export function isAdminAuthorization(header: string | undefined, adminKey: string): boolean {
  if (!header) return false;
  const [scheme, value = ''] = header.split(' ', 2);
  let presented: string | undefined;
  if (scheme.toLowerCase() === 'bearer') presented = value.trim();
  if (scheme.toLowerCase() === 'basic') presented = Buffer.from(value, 'base64').toString('utf8').split(':').slice(1).join(':');
  return presented !== undefined && sameSecret(presented, adminKey);
}

function sameSecret(a: string, b: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(a), digest(b));
}
