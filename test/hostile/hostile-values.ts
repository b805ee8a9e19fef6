import fc from 'fast-check';

/** A hostile JSON value, kept as raw JSON text so that it can be what JSON.stringify would never write. */
export interface HostileJson {
  label: string;
  json: string;
}

const MEGABYTE = 1024 * 1024;

export const deepArray = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
export const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
const str = (value: unknown): string => JSON.stringify(value) ?? 'null';

/**
 * Values put in place of properties: `core` ones at every path of the body, `top` and `heavy` ones at
 * its top-level properties (a heavy one `onlyFor` strings or arrays where the valid body has one, or
 * nothing); random cases put any but `heavy` ones anywhere.
 */
export const HOSTILE_VALUES: Array<HostileJson & { tier: 'core' | 'top' | 'extra' | 'heavy'; onlyFor?: 'string' | 'array' }> = [
  { tier: 'core', label: 'null', json: 'null' },
  { tier: 'top', label: 'true', json: 'true' },
  { tier: 'core', label: '2^64', json: '18446744073709551616' },
  { tier: 'top', label: 'empty string', json: '""' },
  { tier: 'core', label: 'NUL inside', json: str('a\u0000b') },
  { tier: 'core', label: 'lone high surrogate', json: '"\\ud83d"' },
  { tier: 'top', label: 'ISO week date', json: '"2026-W01-1"' },
  { tier: 'top', label: 'not a uuid', json: '"not-a-uuid"' },
  { tier: 'core', label: 'empty array', json: '[]' },
  { tier: 'core', label: 'empty object', json: '{}' },
  { tier: 'top', label: 'object with NUL key', json: '{"a\\u0000":"b"}' },
  { tier: 'core', label: '__proto__ key', json: '{"__proto__":{"polluted":true}}' },
  { tier: 'top', label: 'array nested 100 deep', json: deepArray(100) },
  { tier: 'extra', label: 'zero', json: '0' },
  { tier: 'extra', label: 'minus one', json: '-1' },
  { tier: 'extra', label: 'fraction', json: '1.5' },
  { tier: 'extra', label: '1e308', json: '1e308' },
  { tier: 'extra', label: '1e400 (Infinity)', json: '1e400' },
  { tier: 'extra', label: '-1e400', json: '-1e400' },
  { tier: 'extra', label: '2^63', json: '9223372036854775808' },
  { tier: 'extra', label: '30 digits', json: '123456789012345678901234567890' },
  { tier: 'extra', label: 'blank string', json: '"   "' },
  { tier: 'extra', label: 'NUL', json: str('\u0000') },
  { tier: 'extra', label: 'lone low surrogate inside', json: '"x\\udc00y"' },
  { tier: 'extra', label: 'emoji cut in half', json: '"Hello \\ud83d"' },
  { tier: 'extra', label: 'impossible date', json: '"2026-02-30"' },
  { tier: 'extra', label: 'nil uuid', json: '"00000000-0000-0000-0000-000000000000"' },
  { tier: 'extra', label: 'numeric string 2^63', json: '"9223372036854775808"' },
  { tier: 'extra', label: 'string NaN', json: '"NaN"' },
  { tier: 'extra', label: 'string __proto__', json: '"__proto__"' },
  { tier: 'extra', label: 'string constructor', json: '"constructor"' },
  { tier: 'extra', label: 'email with lone surrogate', json: '"ann\\ud800@example.com"' },
  { tier: 'extra', label: 'url with lone surrogate', json: '"https://example.com/\\udfff"' },
  { tier: 'extra', label: 'array of null', json: '[null]' },
  { tier: 'extra', label: 'array of NUL', json: str(['\u0000']) },
  { tier: 'extra', label: 'object with lone surrogate key', json: '{"\\ud800":"b"}' },
  { tier: 'extra', label: 'constructor.prototype key', json: '{"constructor":{"prototype":{"polluted":true}}}' },
  { tier: 'extra', label: 'object nested 100 deep', json: deepObject(100) },
  { tier: 'heavy', onlyFor: 'string', label: '1 MB string', json: str('a'.repeat(MEGABYTE)) },
  { tier: 'heavy', onlyFor: 'array', label: '10,001-element array', json: `[${'0,'.repeat(10_000)}0]` },
  { tier: 'heavy', label: 'array nested 2,000 deep', json: deepArray(2000) },
  { tier: 'heavy', label: 'object nested 2,000 deep', json: deepObject(2000) },
];

/** Hostile text derived from a valid string, so that it passes type checks and reaches the code behind them. */
export function taintedStrings(valid: string): HostileJson[] {
  return [
    { label: 'valid + NUL', json: str(`${valid}\u0000`) },
    { label: 'valid + lone surrogate', json: `${str(valid).slice(0, -1)}\\ud83d"` },
  ];
}

/** Whole bodies sent instead of the valid one. */
export const HOSTILE_BODIES: HostileJson[] = [
  { label: 'body null', json: 'null' },
  { label: 'body string', json: '"text"' },
  { label: 'body number', json: '42' },
  { label: 'body array', json: '[]' },
  { label: 'body truncated', json: '{"a":' },
  { label: 'body __proto__', json: '{"__proto__":{"polluted":true}}' },
  { label: 'body constructor.prototype', json: '{"constructor":{"prototype":{"polluted":true}}}' },
  { label: 'body NUL key', json: '{"\\u0000":1}' },
  { label: 'body array 5,000 deep', json: deepArray(5000) },
  { label: 'body object 5,000 deep', json: deepObject(5000) },
];

/** Query values, already URL-encoded. */
export const HOSTILE_QUERY_VALUES: Array<{ label: string; raw: string }> = [
  { label: 'NUL', raw: '%00' },
  { label: 'NUL inside', raw: 'a%00b' },
  { label: 'UTF-8 of a lone surrogate', raw: '%ED%A0%80' },
  { label: 'cut UTF-8', raw: '%F0%9F' },
  { label: 'overlong NUL', raw: '%C0%80' },
  { label: 'bad escape', raw: '%zz' },
  { label: 'empty', raw: '' },
  { label: 'blank', raw: '%20' },
  { label: 'minus one', raw: '-1' },
  { label: 'fraction', raw: '1.5' },
  { label: '1e400', raw: '1e400' },
  { label: '2^63 - 1', raw: '9223372036854775807' },
  { label: '2^63', raw: '9223372036854775808' },
  { label: '2^64', raw: '18446744073709551616' },
  { label: '30 digits', raw: '123456789012345678901234567890' },
  { label: 'NaN', raw: 'NaN' },
  { label: 'null', raw: 'null' },
  { label: 'ISO week date', raw: '2026-W01-1' },
  { label: 'impossible date', raw: '2026-02-30' },
  { label: 'not a uuid', raw: 'not-a-uuid' },
  { label: 'uuid list with junk', raw: '0190a1b2-0000-7000-8000-000000000000,%00' },
  { label: '5,000 characters', raw: 'x'.repeat(5000) },
  { label: '__proto__', raw: '__proto__' },
];

/** Path segments put in place of every id. */
export const HOSTILE_IDS: Array<{ label: string; raw: string }> = [
  { label: 'unknown uuid', raw: '0190a1b2-0000-7000-8000-00000000dead' },
  { label: 'nil uuid', raw: '00000000-0000-0000-0000-000000000000' },
  { label: 'not a uuid', raw: 'not-a-uuid' },
  { label: 'NUL', raw: '%00' },
  { label: 'UTF-8 of a lone surrogate', raw: '%ED%A0%80' },
  { label: 'bad escape', raw: '%zz' },
  { label: '2^64', raw: '18446744073709551616' },
  { label: '600 characters', raw: 'x'.repeat(600) },
  { label: 'dot dot', raw: '..%2F..%2Fadmin' },
];

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code));
/** Characters a careless client sends: any code point, NUL, lone surrogates, control characters. */
const hostileChar = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.constant('\u0000') },
  { weight: 1, arbitrary: loneSurrogate },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 0x1f }).map((code) => String.fromCharCode(code)) },
);
const hostileString = fc.string({ unit: hostileChar, maxLength: 40 });
const prototypeKey = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf');

/** JSON text of a random hostile value (strings are escaped by JSON.stringify, lone surrogates as \uXXXX). */
export const hostileJsonArbitrary: fc.Arbitrary<HostileJson> = fc.oneof(
  fc.constantFrom(...HOSTILE_VALUES.filter((value) => value.tier !== 'heavy')),
  hostileString.map((value) => ({ label: 'random text', json: str(value) })),
  fc.double().map((value) => ({ label: 'random double', json: Number.isFinite(value) ? String(value) : '1e400' })),
  fc.bigInt().map((value) => ({ label: 'random big integer', json: value.toString() })),
  fc.jsonValue({ maxDepth: 3 }).map((value) => ({ label: 'random JSON', json: str(value) })),
  fc
    .tuple(prototypeKey, fc.jsonValue({ maxDepth: 2 }))
    .map(([key, value]) => ({ label: `object with key ${key}`, json: `{${str(key)}:${str(value)}}` })),
  fc.dictionary(hostileString, hostileString, { maxKeys: 3 }).map((value) => ({ label: 'object of random text', json: str(value) })),
);
