import { Injectable } from '@nestjs/common';
import { CallPermissionRequestLimit } from './contacts.errors.js';
import { inTransaction } from '../database/transactions.js';
import type { WhatsAppCallPermission } from './whatsapp-call-permission.entity.js';
import { WhatsAppCallPermissionsRepository } from './whatsapp-call-permissions.repository.js';

/** A user's call permission as the consent shows it (API.md §15). */
export interface CallPermissionState {
  status: 'Unknown' | 'Granted' | 'Denied' | 'Expired';
  expiresAt: Date | null;
  permanent: boolean;
}

/** A user's answer, as Meta reports it. */
export interface CallPermissionAnswer {
  granted: boolean;
  /** When a temporary permission ends (Meta's `expiration_timestamp`); null when permanent or denied. */
  expiresAt: Date | null;
  permanent: boolean;
  at: Date;
}

const DAY_MS = 86_400_000;
/** Meta's limits on permission requests to one user from one number: 1 in 24 h, 2 in 7 days. */
const REQUEST_LIMITS = [
  { withinMs: DAY_MS, max: 1 },
  { withinMs: 7 * DAY_MS, max: 2 },
];
/** A temporary permission Meta grants when the user calls first (with callback permission on): 7 days. */
export const CALLBACK_PERMISSION_MS = 7 * DAY_MS;

/**
 * WhatsApp call permissions per business number and user (API.md §15): what the users answered,
 * what that means now (a temporary permission expires), and Meta's limits on asking.
 */
@Injectable()
export class WhatsAppCallPermissions {
  constructor(private readonly permissions: WhatsAppCallPermissionsRepository) {}

  /** The permission of one number to call one user, now. */
  async state(workspaceId: string, channelId: string, userNumber: string, now = new Date()): Promise<CallPermissionState> {
    const rows = await this.permissions.find(workspaceId, { channelId, userNumber });
    return rows[0] ? stateOf(rows[0], now) : UNKNOWN;
  }

  /**
   * {@link state}, read with the row of the number and user locked for the caller's transaction
   * (made empty first when missing): whatever decides on asking the user, and records it, takes its
   * turn here, so two requests for one user never both ask.
   */
  async lockedState(workspaceId: string, channelId: string, userNumber: string, now = new Date()): Promise<CallPermissionState> {
    return stateOf(await this.permissions.lockOrCreate(workspaceId, channelId, userNumber), now);
  }

  /** The user's permission as their consent shows it: granted to any number of the workspace counts, else the latest answer. */
  async ofUser(workspaceId: string, userNumber: string, now = new Date()): Promise<CallPermissionState> {
    const states = (await this.permissions.ofUser(workspaceId, userNumber)).map((row) => stateOf(row, now));
    return states.find((s) => s.status === 'Granted') ?? states.find((s) => s.status !== 'Unknown') ?? UNKNOWN;
  }

  /**
   * Records an answer, unless a newer one is recorded (Meta may deliver webhooks late or twice);
   * a temporary grant (a user's call) never shortens a permanent one. False when nothing changed.
   */
  async answer(workspaceId: string, channelId: string, userNumber: string, answer: CallPermissionAnswer): Promise<boolean> {
    return inTransaction(async () => {
      const row = await this.permissions.lockOrCreate(workspaceId, channelId, userNumber);
      if (row.answeredAt && row.answeredAt > answer.at) return false;
      if (row.status === 'Granted' && row.permanent && answer.granted && !answer.permanent) return false;
      await this.permissions.update(
        workspaceId,
        { channelId, userNumber },
        {
          status: answer.granted ? 'Granted' : 'Denied',
          expiresAt: answer.granted && !answer.permanent ? answer.expiresAt : null,
          permanent: answer.granted && answer.permanent,
          answeredAt: answer.at,
        },
      );
      return true;
    });
  }

  /**
   * Meta refused a call for want of permission (its error 138006) although a grant was recorded: the
   * user revoked it, or it lapsed, without a webhook saying so. The grant is dropped as of `at` (the
   * user's permission reads Unknown, and the next call asks again); an answer Meta reports from after
   * `at` still counts. False when no grant was recorded.
   */
  async revoke(workspaceId: string, channelId: string, userNumber: string, at: Date): Promise<boolean> {
    return inTransaction(async () => {
      const row = await this.permissions.lockOrCreate(workspaceId, channelId, userNumber);
      if (row.status !== 'Granted' || (row.answeredAt && row.answeredAt > at)) return false;
      await this.permissions.update(
        workspaceId,
        { channelId, userNumber },
        { status: null, expiresAt: null, permanent: false, answeredAt: at },
      );
      return true;
    });
  }

  /**
   * Takes one permission request within Meta's limits, in the caller's transaction (with the call
   * that waits for it), as sent at `at`; throws CallPermissionRequestLimit past them, before Meta
   * would refuse.
   */
  async takeRequest(workspaceId: string, channelId: string, userNumber: string, at = new Date()): Promise<void> {
    const row = await this.permissions.lockOrCreate(workspaceId, channelId, userNumber);
    const recent = row.requestedAt.filter((sent) => at.getTime() - sent.getTime() < 7 * DAY_MS);
    for (const limit of REQUEST_LIMITS) {
      const within = recent.filter((sent) => at.getTime() - sent.getTime() < limit.withinMs).sort((a, b) => a.getTime() - b.getTime());
      if (within.length >= limit.max) throw CallPermissionRequestLimit(userNumber, new Date(within[0].getTime() + limit.withinMs));
    }
    await this.permissions.update(workspaceId, { channelId, userNumber }, { requestedAt: [...recent, at] });
  }

  /**
   * Gives back the request taken at `at` ({@link takeRequest}): it was never sent, so Meta did not
   * count it. In the caller's transaction; giving back one not taken (or given back already) changes nothing.
   */
  async giveBackRequest(workspaceId: string, channelId: string, userNumber: string, at: Date): Promise<void> {
    const row = await this.permissions.lockOrCreate(workspaceId, channelId, userNumber);
    const kept = row.requestedAt.filter((sent) => sent.getTime() !== at.getTime());
    if (kept.length !== row.requestedAt.length)
      await this.permissions.update(workspaceId, { channelId, userNumber }, { requestedAt: kept });
  }
}

const UNKNOWN: CallPermissionState = { status: 'Unknown', expiresAt: null, permanent: false };

function stateOf(row: WhatsAppCallPermission, now: Date): CallPermissionState {
  if (row.status === 'Denied') return { status: 'Denied', expiresAt: null, permanent: false };
  if (row.status !== 'Granted') return UNKNOWN;
  if (!row.permanent && row.expiresAt && row.expiresAt <= now) return { status: 'Expired', expiresAt: row.expiresAt, permanent: false };
  return { status: 'Granted', expiresAt: row.permanent ? null : row.expiresAt, permanent: row.permanent };
}
