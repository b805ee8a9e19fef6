import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import 'reflect-metadata';
import { validate } from 'class-validator';
import { parseIsoDateTime } from '../../src/common/time/iso-date-time.js';
import { IsEmail } from '../../src/common/validation/is-email.js';
import { findUnsafeInput, MAX_INPUT_DEPTH } from '../../src/common/validation/unsafe-input.js';

describe('ISO 8601 date-times', () => {
  it('reads calendar dates and date-times, UTC unless an offset is given', () => {
    const cases: Array<[string, string]> = [
      ['2026-03-01', '2026-03-01T00:00:00.000Z'],
      ['2026-03-01T14:47', '2026-03-01T14:47:00.000Z'],
      ['2026-03-01T14:47:18.501', '2026-03-01T14:47:18.501Z'],
      ['2026-03-01T14:47:18.501Z', '2026-03-01T14:47:18.501Z'],
      ['2026-03-01T14:47:18+03:00', '2026-03-01T11:47:18.000Z'],
      ['2026-03-01T14:47:18-0130', '2026-03-01T16:17:18.000Z'],
      [' 2024-02-29 ', '2024-02-29T00:00:00.000Z'],
    ];
    for (const [text, iso] of cases) assert.equal(parseIsoDateTime(text)?.toISOString(), iso, text);
  });

  it('refuses week and ordinal dates, basic formats and dates that do not exist', () => {
    for (const text of [
      '2026-W01-1',
      '2026-W01',
      '2026-060',
      '20260301',
      '2026-03-01T14',
      '2026-02-30',
      '2025-02-29',
      '2026-13-01',
      '2026-03-01T24:00',
      '2026-03-01T23:59:60Z',
      '0000-01-01',
      '2026-03-01T14:47:18,5Z',
      '',
    ]) {
      assert.equal(parseIsoDateTime(text), undefined, text);
    }
  });
});

describe('email addresses', () => {
  class WithEmail {
    @IsEmail() email: unknown;
  }
  const errorsOf = async (email: unknown) => validate(Object.assign(new WithEmail(), { email }));

  it('refuses an unpaired surrogate instead of throwing inside validator.js', async () => {
    for (const email of ['ann\ud800@example.com', '\udfff', 'ann@example.com\ud83d']) {
      const errors = await errorsOf(email);
      assert.deepEqual(errors[0]?.constraints, { isEmail: 'email must be an email' }, JSON.stringify(email));
    }
  });

  it('takes what class-validator takes', async () => {
    assert.deepEqual(await errorsOf('ann@example.com'), []);
    assert.equal((await errorsOf('not an email')).length, 1);
    assert.equal((await errorsOf(42)).length, 1);
  });
});

describe('unsafe input', () => {
  const nested = (depth: number): unknown => (depth === 0 ? 'leaf' : { a: nested(depth - 1) });

  it(`takes ${MAX_INPUT_DEPTH} levels of nesting and refuses one more`, () => {
    assert.equal(findUnsafeInput(nested(MAX_INPUT_DEPTH)), undefined);
    assert.equal(findUnsafeInput(nested(MAX_INPUT_DEPTH + 1))?.kind, 'depth');
  });

  it('finds NUL and unpaired surrogates in values and names, with their path', () => {
    assert.deepEqual(findUnsafeInput({ a: [{ b: 'x\u0000' }] }), { kind: 'text', path: 'a[0].b' });
    assert.deepEqual(findUnsafeInput({ a: { '\ud800': 1 } }), { kind: 'text', path: 'a.\ufffd' });
    assert.equal(findUnsafeInput({ emoji: '😀', text: 'é ü 中文' }), undefined);
  });
});
