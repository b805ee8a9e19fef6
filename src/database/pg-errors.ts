import { QueryFailedError } from 'typeorm';

/** True for a PostgreSQL unique-constraint violation (23505), optionally of one named constraint. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  if (!(err instanceof QueryFailedError)) return false;
  const driverError = err.driverError as { code?: string; constraint?: string };
  return driverError.code === '23505' && (!constraint || driverError.constraint === constraint);
}
