import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { quietPeriodEnd } from '../../src/send-policy/quiet-hours.js';
import { checkedSendAt } from '../../src/send-policy/send-scheduler.service.js';
import { isTimeZone, zoneOfPhoneNumber, zoneOfRegion } from '../../src/send-policy/time-zones.js';
import { getCountries } from 'libphonenumber-js/max';

const at = (iso: string) => new Date(iso);

describe('quiet hours', () => {
  const night = { start: '21:00', end: '09:00' };

  it('a period spanning midnight: held until 09:00 local, the same morning or the next', () => {
    // Riyadh is UTC+3 all year.
    assert.equal(quietPeriodEnd(at('2026-11-25T20:30:00Z'), night, 'Asia/Riyadh')?.toISOString(), '2026-11-26T06:00:00.000Z'); // 23:30 local
    assert.equal(quietPeriodEnd(at('2026-11-25T02:00:00Z'), night, 'Asia/Riyadh')?.toISOString(), '2026-11-25T06:00:00.000Z'); // 05:00 local
    assert.equal(quietPeriodEnd(at('2026-11-25T18:00:00Z'), night, 'Asia/Riyadh')?.toISOString(), '2026-11-26T06:00:00.000Z'); // 21:00 sharp
    assert.equal(quietPeriodEnd(at('2026-11-25T06:00:00Z'), night, 'Asia/Riyadh'), null, '09:00 sharp is the end: not quiet');
    assert.equal(quietPeriodEnd(at('2026-11-25T12:00:00Z'), night, 'Asia/Riyadh'), null, '15:00 is not quiet');
  });

  it('a period inside one day', () => {
    const lunch = { start: '12:00', end: '14:30' };
    assert.equal(quietPeriodEnd(at('2026-11-25T13:10:00Z'), lunch, 'Europe/London')?.toISOString(), '2026-11-25T14:30:00.000Z');
    assert.equal(quietPeriodEnd(at('2026-11-25T14:30:00Z'), lunch, 'Europe/London'), null);
    assert.equal(quietPeriodEnd(at('2026-11-25T11:59:59Z'), lunch, 'Europe/London'), null);
  });

  it('follows the zone, daylight saving included', () => {
    // New York on 2026-03-08 moves from UTC-5 to UTC-4 at 02:00 local: 09:00 that morning is 13:00Z.
    assert.equal(quietPeriodEnd(at('2026-03-08T05:00:00Z'), night, 'America/New_York')?.toISOString(), '2026-03-08T13:00:00.000Z');
    // The day before, still UTC-5: 09:00 is 14:00Z.
    assert.equal(quietPeriodEnd(at('2026-03-07T05:00:00Z'), night, 'America/New_York')?.toISOString(), '2026-03-07T14:00:00.000Z');
    // An end inside the skipped hour (02:30 does not exist that day) resolves to just after the jump.
    const end = quietPeriodEnd(at('2026-03-08T06:00:00Z'), { start: '00:30', end: '02:30' }, 'America/New_York');
    assert.equal(end?.toISOString(), '2026-03-08T07:30:00.000Z');
  });
});

describe('time zones of phone numbers', () => {
  it('one zone per country; countries with several take their capital', () => {
    assert.equal(zoneOfPhoneNumber('+966501234567'), 'Asia/Riyadh');
    assert.equal(zoneOfPhoneNumber('+201001234567'), 'Africa/Cairo');
    assert.equal(zoneOfPhoneNumber('+14155550123'), 'America/New_York');
    assert.equal(zoneOfPhoneNumber('+61412345678'), 'Australia/Sydney');
    assert.equal(zoneOfPhoneNumber('+79161234567'), 'Europe/Moscow');
    assert.equal(zoneOfPhoneNumber('+447700900123'), 'Europe/London', 'a number no region plan fits: the calling code main country');
    assert.equal(zoneOfPhoneNumber('+80012345678'), null, 'non-geographic');
  });

  it('every region libphonenumber knows has a zone the runtime knows', () => {
    const missing = getCountries().filter((region) => {
      const zone = zoneOfRegion(region);
      return !zone || !isTimeZone(zone);
    });
    assert.deepEqual(missing, []);
  });
});

describe('sendAt', () => {
  const now = Date.parse('2026-11-25T12:00:00Z');
  it('takes a future time up to 30 days ahead; without an offset it is UTC', () => {
    assert.equal(checkedSendAt('2026-11-25T12:00:01Z', now).toISOString(), '2026-11-25T12:00:01.000Z');
    assert.equal(checkedSendAt('2026-11-25T16:00:00+03:00', now).toISOString(), '2026-11-25T13:00:00.000Z');
    assert.equal(checkedSendAt('2026-12-25T12:00', now).toISOString(), '2026-12-25T12:00:00.000Z');
  });
  it('refuses now, the past, more than 30 days ahead and non-dates', () => {
    for (const bad of ['2026-11-25T12:00:00Z', '2026-11-24T12:00:00Z', '2026-12-25T12:00:01Z', 'soon']) {
      assert.throws(
        () => checkedSendAt(bad, now),
        (err: Error & { code?: string }) => err.code === 'Policy:InvalidSendAt',
        bad,
      );
    }
  });
});
