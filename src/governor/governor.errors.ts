import { DomainError, ErrorKind } from '../common/errors/domain-error.js';

/** The code of {@link MessagingLimitReached}, for callers that act on it (a campaign pauses, a scheduled send fails) rather than answer it. */
export const MESSAGING_LIMIT_REACHED = 'WhatsApp:MessagingLimitReached';
/**
 * A business-initiated send to a new recipient while the channel's messaging limit (API.md §13) is
 * reached: 429, with Retry-After the time until the oldest recipient counted leaves the rolling 24 h.
 */
export const MessagingLimitReached = (limit: number, retryAfterMs: number) =>
  new DomainError(
    MESSAGING_LIMIT_REACHED,
    `The channel reached its messaging limit: ${limit} unique recipients of business-initiated conversations in the last 24 hours. A recipient already messaged in that time can still be sent to.`,
    ErrorKind.RateLimited,
    { headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) } },
  );
