import { toE164 } from '../../common/phone/phone-number.js';
import type { MetaTierUpdate } from '../../governor/meta-tiers.service.js';
import { ACCOUNT_DISABLED, BUSINESS_INITIATED_RESTRICTED } from '../../governor/account-restriction.js';

/**
 * Meta's account webhooks about a number's tiers (API.md §14), read into {@link MetaTierUpdate}s.
 *
 * `phone_number_quality_update` `{ display_phone_number, event, current_limit, old_limit?,
 * max_daily_conversations_per_business }`:
 * - the messaging limit is `max_daily_conversations_per_business` (the business portfolio's, since
 *   October 2025), else `current_limit` (which Meta drops in 2026): TIER_50 … TIER_100K, TIER_1K of
 *   older payloads, TIER_UNLIMITED (no limit); TIER_NOT_SET (the number never sent) changes nothing;
 * - THROUGHPUT_UPGRADE moves the number to Meta's higher throughput, 1,000 messages a second; its
 *   TIER_UNLIMITED names that throughput, not the messaging limit, which it leaves as it was;
 * - FLAGGED means the quality fell to low (RED); UNFLAGGED that it is no longer low, without saying
 *   whether medium or high (UNKNOWN); a `quality_rating` in the value, when present, is taken as it is.
 *
 * `account_update` `{ event, restriction_info?, ban_info? }` about the whole WhatsApp Business Account:
 * an ACCOUNT_RESTRICTION naming RESTRICTED_BIZ_INITIATED_MESSAGING, or a DISABLED_UPDATE whose ban
 * state is DISABLE, stops business-initiated sends (messaging limit 0) on the account's numbers
 * until it is lifted (see {@link accountRestriction}). Other account events say nothing about the
 * tiers and are not read.
 */
export function readTierUpdates(notification: unknown): MetaTierUpdate[] {
  const updates: MetaTierUpdate[] = [];
  const entries = (notification as TierNotification | null)?.entry;
  if (!Array.isArray(entries)) return updates;
  for (const entry of entries) {
    const wabaId = typeof entry?.id === 'string' && entry.id ? entry.id : null;
    for (const change of Array.isArray(entry?.changes) ? entry.changes : []) {
      const value = change?.value;
      if (!value || typeof value !== 'object' || typeof value.event !== 'string') continue;
      if (change.field === 'phone_number_quality_update') updates.push(qualityUpdate(wabaId, value));
      else if (change.field === 'account_update') {
        const update = accountUpdate(wabaId, value);
        if (update) updates.push(update);
      }
    }
  }
  return updates;
}

/** Meta's higher throughput (THROUGHPUT_UPGRADE), messages a second. */
export const HIGHER_THROUGHPUT_PER_SECOND = 1000;

const LIMIT_TIERS: Record<string, number | null> = {
  TIER_50: 50,
  TIER_250: 250,
  TIER_1K: 1000,
  TIER_2K: 2000,
  TIER_10K: 10000,
  TIER_100K: 100000,
  TIER_UNLIMITED: null,
};

const RATINGS = new Set(['GREEN', 'YELLOW', 'RED', 'UNKNOWN']);

interface TierNotification {
  entry?: Array<{ id?: string; changes?: Array<{ field?: string; value?: TierValue }> }>;
}

interface TierValue {
  event?: string;
  display_phone_number?: string;
  phone_number?: string;
  current_limit?: string;
  old_limit?: string;
  max_daily_conversations_per_business?: string;
  quality_rating?: string;
  restriction_info?: Array<{ restriction_type?: string; expiration?: string | number }>;
  ban_info?: { waba_ban_state?: string | string[]; waba_ban_date?: string };
}

function qualityUpdate(wabaId: string | null, value: TierValue): MetaTierUpdate {
  const event = value.event as string;
  const update: MetaTierUpdate = {
    field: 'phone_number_quality_update',
    event,
    wabaId,
    phoneNumber: phoneOf(value.display_phone_number),
  };
  if (event === 'THROUGHPUT_UPGRADE') {
    update.throughputPerSecond = HIGHER_THROUGHPUT_PER_SECOND;
    const limit = value.max_daily_conversations_per_business ?? value.current_limit;
    // Only a numbered tier here: TIER_UNLIMITED in this event is the throughput's.
    if (limit && limit !== 'TIER_UNLIMITED' && Object.hasOwn(LIMIT_TIERS, limit)) update.messagingLimit = LIMIT_TIERS[limit];
  } else {
    const limit = value.max_daily_conversations_per_business ?? value.current_limit;
    if (limit && Object.hasOwn(LIMIT_TIERS, limit)) update.messagingLimit = LIMIT_TIERS[limit];
  }
  const rating = typeof value.quality_rating === 'string' ? value.quality_rating.toUpperCase() : undefined;
  if (rating && RATINGS.has(rating)) update.qualityRating = rating;
  else if (event === 'FLAGGED') update.qualityRating = 'RED';
  else if (event === 'UNFLAGGED') update.qualityRating = 'UNKNOWN';
  return update;
}

function accountUpdate(wabaId: string | null, value: TierValue): MetaTierUpdate | null {
  const event = value.event as string;
  const restriction = accountRestriction(event, value);
  if (!restriction) return null;
  return { field: 'account_update', event, wabaId, phoneNumber: phoneOf(value.phone_number), restriction };
}

/**
 * What an `account_update` does to business-initiated messaging: an ACCOUNT_RESTRICTION naming
 * RESTRICTED_BIZ_INITIATED_MESSAGING imposes it until its `expiration` (or until lifted); one whose
 * `restriction_info` no longer names it lifts it; a DISABLED_UPDATE of ban state DISABLE stops it
 * until a REINSTATE. An ACCOUNT_VIOLATION alone restricts nothing (Meta follows it with an
 * ACCOUNT_RESTRICTION when it restricts), nor does a SCHEDULE_FOR_DISABLE (a warning).
 */
function accountRestriction(event: string, value: TierValue): MetaTierUpdate['restriction'] | undefined {
  if (event === 'ACCOUNT_RESTRICTION' && Array.isArray(value.restriction_info)) {
    const imposed = value.restriction_info.find((r) => r?.restriction_type === BUSINESS_INITIATED_RESTRICTED);
    if (!imposed) return { lift: BUSINESS_INITIATED_RESTRICTED };
    return { impose: { reason: BUSINESS_INITIATED_RESTRICTED, endsAt: metaTime(imposed.expiration) } };
  }
  if (event === 'DISABLED_UPDATE') {
    const banState = value.ban_info?.waba_ban_state;
    const states = Array.isArray(banState) ? banState : [banState];
    if (states.includes('DISABLE')) return { impose: { reason: ACCOUNT_DISABLED, endsAt: null } };
    if (states.includes('REINSTATE')) return { lift: ACCOUNT_DISABLED };
  }
  return undefined;
}

/**
 * A time as Meta writes it in `restriction_info[].expiration`: its examples give an ISO 8601 string
 * with a `+0000` offset (`2026-04-19T13:59:20+0000`), while Meta's webhook timestamps elsewhere are
 * Unix seconds (as a number or a string of digits); both are read. Null when absent or unreadable
 * (the restriction then lasts until Meta lifts it).
 */
function metaTime(value: unknown): Date | null {
  let at: Date | null = null;
  if (typeof value === 'number' && Number.isFinite(value)) at = new Date(value * 1000);
  else if (typeof value === 'string' && /^\d+$/.test(value.trim())) at = new Date(Number(value.trim()) * 1000);
  else if (typeof value === 'string' && value.trim()) at = new Date(value.trim());
  return at && !Number.isNaN(at.getTime()) ? at : null;
}

/** Meta's display number (digits, sometimes formatted) in E.164, as channels store theirs; null when absent (one that cannot be read matches no channel). */
function phoneOf(display: string | undefined): string | null {
  if (typeof display !== 'string' || !display.trim()) return null;
  return toE164(display) ?? display.trim();
}
