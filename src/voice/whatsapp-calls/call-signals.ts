import { toE164 } from '../../common/phone/phone-number.js';
import { isWhatsAppUserId } from '../../common/phone/whatsapp-user-id.js';
import type { WhatsAppIds } from '../../contacts/whatsapp-ids.js';

/**
 * What Meta's `calls` webhook field says about a call (API.md §15), reduced to what the worker
 * running the call needs: the SDP of `connect`, the statuses (RINGING, ACCEPTED, REJECTED) and
 * `terminate`.
 */
export type CallSignal = { callId: string; phoneNumberId: string } & (
  | {
      kind: 'connect';
      direction: string;
      sdpType: string;
      sdp: string;
      /** The caller's number (digits); empty when a user calls without sharing it (2026's usernames). */
      from: string;
      /** The caller's business-scoped user id (`from_user_id`), when Meta gives it; the only id of a user who shares no number. */
      fromUserId: string;
      /** The caller's parent BSUID (`from_parent_user_id`), when Meta gives it. */
      fromParentUserId: string;
      to: string;
    }
  | { kind: 'status'; status: 'RINGING' | 'ACCEPTED' | 'REJECTED' }
  | { kind: 'terminate'; status: string; durationSeconds: number | null }
);

interface CallEntry {
  id?: unknown;
  event?: unknown;
  direction?: unknown;
  from?: unknown;
  from_user_id?: unknown;
  from_parent_user_id?: unknown;
  to?: unknown;
  session?: { sdp_type?: unknown; sdp?: unknown };
  status?: unknown;
  duration?: unknown;
}

interface CallStatusEntry {
  id?: unknown;
  type?: unknown;
  status?: unknown;
}

const STATUSES = new Set(['RINGING', 'ACCEPTED', 'REJECTED']);
const str = (value: unknown) => (typeof value === 'string' ? value : '');

/** The call signals of a webhook notification, in the order Meta listed them; anything else in it is left to the message intake. */
export function readCallSignals(notification: unknown): CallSignal[] {
  const signals: CallSignal[] = [];
  const entries = (notification as { entry?: Array<{ changes?: Array<{ field?: string; value?: Record<string, unknown> }> }> })?.entry;
  for (const entry of Array.isArray(entries) ? entries : []) {
    for (const change of Array.isArray(entry?.changes) ? entry.changes : []) {
      const value = change?.value ?? {};
      const phoneNumberId = str((value.metadata as { phone_number_id?: unknown } | undefined)?.phone_number_id);
      if (change?.field === 'calls') for (const call of list<CallEntry>(value.calls)) signals.push(...callSignal(phoneNumberId, call));
      // Call statuses come in the `statuses` of the `calls` field, typed "call".
      for (const status of list<CallStatusEntry>(value.statuses)) {
        if (status?.type === 'call' && typeof status.id === 'string' && STATUSES.has(str(status.status)))
          signals.push({ callId: status.id, phoneNumberId, kind: 'status', status: status.status as 'RINGING' | 'ACCEPTED' | 'REJECTED' });
      }
    }
  }
  return signals;
}

function callSignal(phoneNumberId: string, call: CallEntry): CallSignal[] {
  const callId = str(call?.id);
  if (!callId) return [];
  if (call.event === 'connect' && typeof call.session?.sdp === 'string') {
    return [
      {
        callId,
        phoneNumberId,
        kind: 'connect',
        direction: str(call.direction),
        sdpType: str(call.session.sdp_type),
        sdp: call.session.sdp,
        from: str(call.from),
        fromUserId: str(call.from_user_id),
        fromParentUserId: str(call.from_parent_user_id),
        to: str(call.to),
      },
    ];
  }
  if (call.event === 'terminate') {
    const duration = Number(call.duration);
    return [
      { callId, phoneNumberId, kind: 'terminate', status: str(call.status), durationSeconds: Number.isFinite(duration) ? duration : null },
    ];
  }
  return [];
}

/** A WhatsApp user's call: a `connect` carrying the user's SDP offer. */
export type UserCallOffer = Extract<CallSignal, { kind: 'connect' }>;

export function isUserCallOffer(signal: CallSignal): signal is UserCallOffer {
  return signal.kind === 'connect' && signal.sdpType === 'offer';
}

/**
 * Who places a user's call, as a message names its sender: their number (E.164) when Meta shares
 * it, their business-scoped user id and parent BSUID when Meta gives them (2026's usernames);
 * each null when absent (or not in its form).
 */
export function callerIds(offer: UserCallOffer): WhatsAppIds {
  const id = (value: string) => (isWhatsAppUserId(value) ? value : null);
  return { phoneNumber: toE164(offer.from) ?? null, userId: id(offer.fromUserId), parentUserId: id(offer.fromParentUserId) };
}

function list<T>(value: unknown): T[] {
  return Array.isArray(value) ? (value as T[]) : [];
}
