import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { InputNestedTooDeep, UnsafeText } from './unsafe-input.errors.js';

/** How deep objects and arrays may nest in a body; no operation needs a tenth of it. */
export const MAX_INPUT_DEPTH = 64;

/**
 * NUL, which PostgreSQL refuses in text and JSON, and a UTF-16 surrogate without its pair (a string
 * cut inside an emoji), which JSON columns refuse, UTF-8 cannot encode and `decodeURIComponent` throws on.
 */
// eslint-disable-next-line no-control-regex -- NUL is exactly what this looks for.
const UNSAFE_TEXT = /[\u0000\p{Cs}]/u;
const UNSAFE_TEXT_ALL = new RegExp(UNSAFE_TEXT.source, 'gu');

/** Whether `text` holds NUL or an unpaired surrogate. */
export function hasUnsafeText(text: string): boolean {
  return UNSAFE_TEXT.test(text);
}

export type UnsafeInput = { kind: 'depth' | 'text'; path: string };

interface Frame {
  value: unknown;
  depth: number;
  parent?: Frame;
  key?: string | number;
}

/** `customFields.a[2]`, the spelling of validation error members (unsafe characters of names shown as U+FFFD). */
function pathOf(frame: Frame | undefined, key?: string | number): string {
  const keys: Array<string | number> = key === undefined ? [] : [key];
  for (let f = frame; f?.key !== undefined; f = f.parent) keys.unshift(f.key);
  return keys
    .map((k) => (typeof k === 'string' ? k.replace(UNSAFE_TEXT_ALL, '\uFFFD') : k))
    .reduce<string>((path, k) => (typeof k === 'number' ? `${path}[${k}]` : path ? `${path}.${k}` : k), '');
}

/**
 * The first string or property name of a parsed body or query that the service cannot store, or
 * the first object or array nested deeper than `maxDepth`. Walks with its own stack, so that no
 * input can exhaust the call stack, and stops at the depth limit before looking further down.
 */
export function findUnsafeInput(input: unknown, maxDepth = MAX_INPUT_DEPTH): UnsafeInput | undefined {
  const stack: Frame[] = [{ value: input, depth: 0 }];
  for (let frame = stack.pop(); frame; frame = stack.pop()) {
    const { value, depth } = frame;
    if (typeof value === 'string') {
      if (UNSAFE_TEXT.test(value)) return { kind: 'text', path: pathOf(frame) };
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= maxDepth) return { kind: 'depth', path: pathOf(frame) };
    if (Array.isArray(value)) {
      value.forEach((item, index) => stack.push({ value: item, depth: depth + 1, parent: frame, key: index }));
      continue;
    }
    for (const [key, item] of Object.entries(value)) {
      if (UNSAFE_TEXT.test(key)) return { kind: 'text', path: pathOf(frame, key) };
      stack.push({ value: item, depth: depth + 1, parent: frame, key });
    }
  }
  return undefined;
}

/**
 * Refuses, for every route, a body or query holding text the service cannot store or nesting
 * deeper than {@link MAX_INPUT_DEPTH}, with a 400 in the error envelope: once parsed and before
 * anything else (guards, interceptors, the case-insensitive keys pipe, class-transformer) walks it.
 */
export function refuseUnsafeInput(app: NestFastifyApplication): void {
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('preValidation', (request, _reply, done) => {
      // Most GETs have neither: nothing to walk.
      if (request.body === undefined && isEmptyObject(request.query)) return done();
      for (const [source, value] of [
        ['query', request.query],
        ['body', request.body],
      ] as const) {
        const unsafe = findUnsafeInput(value);
        if (unsafe?.kind === 'depth') return done(InputNestedTooDeep(source, unsafe.path, MAX_INPUT_DEPTH));
        if (unsafe) return done(UnsafeText(source, unsafe.path));
      }
      done();
    });
}

function isEmptyObject(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  for (const key in value) if (Object.hasOwn(value, key)) return false;
  return true;
}
