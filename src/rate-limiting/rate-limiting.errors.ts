import { DomainError, ErrorKind } from '../common/errors/domain-error.js';

/** A 429 naming the policy and when to retry; `headers` carry X-RateLimit-* and Retry-After. */
export const RateLimitExceeded = (
  policy: string,
  points: number,
  windowSeconds: number,
  resetSeconds: number,
  headers: Record<string, string>,
) =>
  new DomainError(
    'RateLimit:Exceeded',
    `Rate limit '${policy}' of ${points} per ${windowSeconds}s exceeded. Retry after ${resetSeconds}s.`,
    ErrorKind.RateLimited,
    { headers },
  );
