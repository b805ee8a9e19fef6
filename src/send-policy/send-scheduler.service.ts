import { Injectable } from '@nestjs/common';
import { parseIsoDateTime } from '../common/time/iso-date-time.js';
import { ContactPropertyValues } from '../contacts/contact-property-values.service.js';
import type { ContactRef } from '../contacts/contact-property-values.service.js';
import { quietPeriodEnd, type QuietHoursScope } from './quiet-hours.js';
import type { TimeZonePolicy } from './send-policy.entity.js';
import { InvalidSendAt } from './send-policy.errors.js';
import { SendPolicyService, type SendSettings } from './send-policy.service.js';
import { isTimeZone, zoneOfPhoneNumber } from './time-zones.js';

/** How far ahead `sendAt` may be. */
export const MAX_SEND_AT_AHEAD_DAYS = 30;

/** What decides when a send leaves. */
export interface SendTiming {
  /** The quiet hours scope the send falls under (a marketing template, a call); null: quiet hours do not hold it. */
  scope: QuietHoursScope | null;
  recipient: ContactRef;
  /** The caller's `sendAt` (ISO 8601, already checked to be one), if any. */
  sendAt?: string;
}

/**
 * When a send leaves (API.md §13): at `sendAt` if given, and, for what quiet hours cover, not
 * before the end of the quiet period it would land in, in the contact's time zone.
 */
@Injectable()
export class SendScheduler {
  constructor(
    private readonly policy: SendPolicyService,
    private readonly propertyValues: ContactPropertyValues,
  ) {}

  /**
   * The instant the send is due, or null for at once. Reads the policy only when quiet hours may
   * apply (`settings` when the caller has it already).
   */
  async dueAt(workspaceId: string, timing: SendTiming, settings?: SendSettings): Promise<Date | null> {
    const sendAt = timing.sendAt === undefined ? null : checkedSendAt(timing.sendAt);
    if (!timing.scope) return sendAt;
    const policy = settings ?? (await this.policy.settings(workspaceId));
    const quiet = policy.quietHours;
    if (!quiet?.appliesTo.includes(timing.scope)) return sendAt;
    const zone = await this.zoneOf(workspaceId, policy.timezone, timing.recipient);
    return quietPeriodEnd(sendAt ?? new Date(), quiet, zone) ?? sendAt;
  }

  /**
   * The contact's time zone: the policy's property when the contact holds a known zone in it, else
   * its number's country (when the policy says so and the country is known), else the default.
   */
  async zoneOf(workspaceId: string, policy: TimeZonePolicy, recipient: ContactRef): Promise<string> {
    if (policy.property) {
      const value = await this.propertyValues.textOf(workspaceId, recipient, policy.property);
      if (value && isTimeZone(value)) return value;
    }
    const byNumber = policy.fromPhoneNumber && recipient.phoneNumber ? zoneOfPhoneNumber(recipient.phoneNumber) : null;
    return byNumber ?? policy.default;
  }
}

/** `sendAt` as an instant: later than now and at most {@link MAX_SEND_AT_AHEAD_DAYS} days ahead, else a 400 naming it. */
export function checkedSendAt(raw: string, now = Date.now()): Date {
  const at = parseIsoDateTime(raw);
  if (!at) throw InvalidSendAt('sendAt must be an ISO 8601 date-time, e.g. 2026-03-01T14:47:00Z.');
  if (at.getTime() <= now) throw InvalidSendAt(`sendAt ${raw} is not in the future.`);
  if (at.getTime() > now + MAX_SEND_AT_AHEAD_DAYS * 24 * 3600 * 1000)
    throw InvalidSendAt(`sendAt ${raw} is more than ${MAX_SEND_AT_AHEAD_DAYS} days ahead.`);
  return at;
}
