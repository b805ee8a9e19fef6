import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CallHours, WhatsAppCallingSettings } from '../../src/channels/channel.entity.js';
import { flowForUserCall, isWithinCallHours } from '../../src/voice/whatsapp-calls/call-hours.js';

const RIYADH_WEEKDAYS: CallHours = {
  timezoneId: 'Asia/Riyadh',
  weeklyOperatingHours: ['SUNDAY', 'MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY'].map((dayOfWeek) => ({
    dayOfWeek: dayOfWeek as CallHours['weeklyOperatingHours'][number]['dayOfWeek'],
    openTime: '0900',
    closeTime: '1700',
  })),
  holidaySchedule: [{ date: '2026-12-31', startTime: '1200', endTime: '2359' }],
};

describe("A WhatsApp number's call hours decide which flow answers a user's call", () => {
  it('reads the opening times in the number’s own time zone', () => {
    // Sunday 2026-11-29 09:30 in Riyadh is 06:30 UTC.
    assert.equal(isWithinCallHours(RIYADH_WEEKDAYS, new Date('2026-11-29T06:30:00Z')), true);
    assert.equal(isWithinCallHours(RIYADH_WEEKDAYS, new Date('2026-11-29T05:59:00Z')), false, '08:59 there: not open yet');
    assert.equal(isWithinCallHours(RIYADH_WEEKDAYS, new Date('2026-11-29T14:00:00Z')), false, '17:00 there: closed');
    assert.equal(isWithinCallHours(RIYADH_WEEKDAYS, new Date('2026-11-28T08:00:00Z')), false, 'a Saturday');
  });

  it("closes for a holiday's stretch only", () => {
    assert.equal(isWithinCallHours(RIYADH_WEEKDAYS, new Date('2026-12-31T08:00:00Z')), true, '11:00 on the 31st');
    assert.equal(isWithinCallHours(RIYADH_WEEKDAYS, new Date('2026-12-31T10:00:00Z')), false, '13:00 on the 31st');
  });

  it('no hours: always open; the inbound flow in hours, the after-hours flow outside, none when calling is off', () => {
    assert.equal(isWithinCallHours(null, new Date()), true);
    const calling: WhatsAppCallingSettings = {
      enabled: true,
      callHours: RIYADH_WEEKDAYS,
      callbackPermission: false,
      inboundFlowId: 'in',
      afterHoursFlowId: 'after',
    };
    assert.equal(flowForUserCall(calling, new Date('2026-11-29T06:30:00Z')), 'in');
    assert.equal(flowForUserCall(calling, new Date('2026-11-28T06:30:00Z')), 'after');
    assert.equal(flowForUserCall({ ...calling, afterHoursFlowId: null }, new Date('2026-11-28T06:30:00Z')), null);
    assert.equal(flowForUserCall({ ...calling, enabled: false }, new Date('2026-11-29T06:30:00Z')), null);
    assert.equal(flowForUserCall(null, new Date()), null);
  });
});
