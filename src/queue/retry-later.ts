import type { Job } from 'bull';

/**
 * Thrown by a job handler to be tried again (while attempts remain) after the usual backoff, and
 * never sooner than `afterMs` when given (a provider's `Retry-After`).
 */
export class RetryLaterError extends Error {
  constructor(
    message: string,
    readonly afterMs?: number,
  ) {
    super(message);
    this.name = 'RetryLaterError';
  }
}

/** The name under which {@link backoffDelay} is registered with Bull. */
export const BACKOFF_STRATEGY = 'exponential-or-retry-after';

const BASE_DELAY_MS = 1000;
const MAX_DELAY_MS = 3600_000;

/** Bull backoff: 1 s, 3 s, 7 s, 15 s… after attempts 1, 2, 3, 4…, or the delay the error asks for if longer (capped at an hour). */
export function backoffDelay(attemptsMade: number, err: unknown): number {
  const exponential = (2 ** attemptsMade - 1) * BASE_DELAY_MS;
  const asked = err instanceof RetryLaterError ? (err.afterMs ?? 0) : 0;
  return Math.min(Math.max(exponential, asked), MAX_DELAY_MS);
}

/** Is this run the job's last attempt (no retry follows a failure)? */
export function isLastAttempt(job: Job): boolean {
  return job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
}
