import { QueryFailedError, QueryRunnerAlreadyReleasedError, QueryRunnerProviderAlreadyReleasedError } from 'typeorm';

/** The PostgreSQL error classes feature code reacts to (SQLSTATE codes, appendix A of the manual). */
const SQLSTATE = {
  unique: '23505',
  'foreign-key': '23503',
  check: '23514',
  'not-null': '23502',
  serialization: '40001',
  deadlock: '40P01',
  /** Ours: `idempotency_claim_held()` (migration IdempotencyClaimToken) in a write whose Idempotency-Key was claimed again. */
  'idempotency-claim-lost': 'MSI01',
} as const;

export type PgErrorKind = keyof typeof SQLSTATE;

export const pgError = {
  /** True when `err` is a PostgreSQL error of `kind`, optionally of one named constraint. */
  is(err: unknown, kind: PgErrorKind, constraint?: string): boolean {
    const driverError = driverErrorOf(err);
    return driverError?.code === SQLSTATE[kind] && (!constraint || driverError.constraint === constraint);
  },
};

function driverErrorOf(err: unknown): { code?: string; constraint?: string } | undefined {
  if (err instanceof QueryFailedError) return err.driverError as { code?: string; constraint?: string };
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? (err as { code: string; constraint?: string }) : undefined;
}

/** True for a PostgreSQL unique-constraint violation (23505), optionally of one named constraint. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  return pgError.is(err, 'unique', constraint);
}

/**
 * Socket errors of a connection to PostgreSQL that could not be made or was cut. On a request path
 * nothing else opens raw sockets: outbound HTTP (fetch) wraps its errors, and ioredis has its own.
 */
const CONNECTION_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT']);
/** node-postgres's own words for a pool that timed out connecting, or a connection that ended under a query. */
const CONNECTION_MESSAGES = /timeout exceeded when trying to connect|Connection terminated|Client has encountered a connection error/;

/**
 * True when `err` says PostgreSQL cannot be reached or is going away (a restart, a failover), not
 * that the statement was wrong: a refused or cut socket, class 08 (connection exception), and 57P01-57P03
 * (shutting down, crashed, starting up), or a transaction whose connection was cut under it. Retrying
 * later can succeed, so callers answer 503, not 500.
 */
export function isDatabaseUnreachable(err: unknown): boolean {
  // TypeORM releases a transaction's connection when the server cuts it; the transaction's next statement says so.
  if (err instanceof QueryRunnerAlreadyReleasedError || err instanceof QueryRunnerProviderAlreadyReleasedError) return true;
  const driverError = driverErrorOf(err) ?? (err as { code?: string } | null);
  const code = driverError?.code;
  if (typeof code === 'string' && (CONNECTION_ERRNOS.has(code) || code.startsWith('08') || /^57P0[123]$/.test(code))) return true;
  const message = (err as { message?: unknown } | null)?.message;
  return typeof message === 'string' && CONNECTION_MESSAGES.test(message);
}
