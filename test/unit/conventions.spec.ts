import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsOptional, IsString, ValidateNested } from 'class-validator';
import { parseSorting } from '../../src/common/paging/sorting.js';
import { regionOf, toE164 } from '../../src/common/phone/phone-number.js';
import { formatTimestamp, TimestampFormat } from '../../src/common/time/timestamp-format.js';
import { CaseInsensitiveKeysPipe } from '../../src/common/validation/case-insensitive-keys.pipe.js';
import { DomainError } from '../../src/common/errors/domain-error.js';

class InnerDto {
  @IsString() digit: string;
}
class OuterDto {
  @IsString() channelId: string;
  @IsOptional() @ValidateNested({ each: true }) @Type(() => InnerDto) options?: InnerDto[];
}

describe('phone numbers', () => {
  it('normalises the accepted spellings to E.164', () => {
    for (const input of ['966501234567', '+966501234567', '+966 50 123 4567', '00966501234567', '(966) 50-123-4567']) {
      assert.equal(toE164(input), '+966501234567', input);
    }
    assert.equal(regionOf('+966501234567'), 'SA');
  });

  it('rejects what cannot be an international number', () => {
    for (const input of ['12345', '+1 555', 'abc', '', '+99912345678901234', '0501234567']) assert.equal(toE164(input), undefined, input);
  });
});

describe('timestamps', () => {
  const date = new Date('2026-03-01T14:47:18.501Z');
  it('formats the three API.md shapes', () => {
    assert.equal(TimestampFormat.noOffset(date), '2026-03-01T14:47:18.501');
    assert.equal(TimestampFormat.withOffset(date), '2026-03-01T14:47:18.501+00:00');
    assert.equal(TimestampFormat.utc(date), '2026-03-01T14:47:18.501Z');
    assert.equal(formatTimestamp(null, TimestampFormat.utc), null);
  });
});

describe('sorting', () => {
  const allowed = { name: 'c.name', creationtime: 'c.creation_time' };
  const fallback = { column: 'c.creation_time', direction: 'DESC' as const };
  it('reads whitelisted fields case-insensitively', () => {
    assert.deepEqual(parseSorting('Name DESC', allowed, fallback), { column: 'c.name', direction: 'DESC' });
    assert.deepEqual(parseSorting('creationTime', allowed, fallback), { column: 'c.creation_time', direction: 'ASC' });
    assert.deepEqual(parseSorting(undefined, allowed, fallback), fallback);
  });
  it('refuses anything else with a 400', () => {
    for (const bad of ['Password ASC', 'name; DROP TABLE x', 'name sideways', '__proto__', 'constructor DESC', 'toString']) {
      assert.throws(
        () => parseSorting(bad, allowed, fallback),
        (err: DomainError) => err.status === 400 && err.code === 'Request:InvalidSorting',
      );
    }
  });
});

describe('case-insensitive property names', () => {
  const pipe = new CaseInsensitiveKeysPipe();
  it('folds names at every nesting level the DTO declares', () => {
    const out = pipe.transform(
      { CHANNELID: 'c1', Options: [{ Digit: '1' }, { digit: '2' }], Unknown: 1 },
      { type: 'body', metatype: OuterDto },
    );
    assert.deepEqual(out, { channelId: 'c1', options: [{ digit: '1' }, { digit: '2' }], Unknown: 1 });
  });
  it('prefers the exact spelling when both are sent', () => {
    assert.deepEqual(pipe.transform({ ChannelId: 'a', channelId: 'b' }, { type: 'body', metatype: OuterDto }), { channelId: 'b' });
  });
  it('leaves path parameters and primitives alone', () => {
    assert.equal(pipe.transform('X', { type: 'param', metatype: String }), 'X');
  });
});
