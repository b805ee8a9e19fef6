import type { AttemptOutcome } from './webhook-sender.js';

type Failure = Exclude<AttemptOutcome, { kind: 'success' }>;

export interface FailedAttempt {
  deliveryId: string;
  /** The event type (`whatsapp.message`, …). */
  kind: string;
  targetUrl: string;
  attempt: number;
  outcome: Failure;
  /** When the next attempt is due; null when this was the delivery's last. */
  nextAttemptAt: Date | null;
}

/** A warn record for one failed attempt: what failed, where, and what happens next, readable as a line. */
export function failedAttemptRecord(failed: FailedAttempt): Record<string, unknown> {
  const { deliveryId, kind, attempt, outcome, nextAttemptAt } = failed;
  const host = hostOf(failed.targetUrl);
  const statusCode = outcome.kind === 'http-failure' ? outcome.statusCode : undefined;
  const error = outcome.kind === 'http-failure' ? `HTTP ${outcome.statusCode}` : outcome.error;
  const next = nextAttemptAt ? `next attempt at ${nextAttemptAt.toISOString()}` : `no further attempt: ${whyStopped(outcome)}`;
  return {
    msg: `Webhook delivery ${deliveryId} (${kind}) to ${host}: attempt ${attempt} failed (${error}); ${next}`,
    deliveryId,
    kind,
    host,
    attempt,
    statusCode,
    error,
    nextAttemptAt: nextAttemptAt?.toISOString() ?? null,
  };
}

function whyStopped(outcome: Failure): string {
  if (outcome.kind === 'refused') return 'refused, not retried';
  if (outcome.kind === 'http-failure' && outcome.statusCode === 410) return 'the receiver answered 410 Gone, delivery stopped';
  return 'that was the last attempt, given up';
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
