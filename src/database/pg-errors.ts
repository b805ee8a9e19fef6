import { QueryFailedError } from 'typeorm';

/** The PostgreSQL error classes feature code reacts to (SQLSTATE codes, appendix A of the manual). */
const SQLSTATE = {
  unique: '23505',
  'foreign-key': '23503',
  check: '23514',
  'not-null': '23502',
  serialization: '40001',
  deadlock: '40P01',
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
