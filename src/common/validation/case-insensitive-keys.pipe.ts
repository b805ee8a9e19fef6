import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';
import { defaultMetadataStorage } from 'class-transformer/cjs/storage.js';

type Ctor = new (...args: unknown[]) => unknown;

/**
 * Renames incoming body and query properties to the DTO's own spelling, ignoring case
 * (`ChannelId`, `channelId`, `CHANNELID` all bind to `channelId`), at every nesting level
 * the DTO declares with `@Type`. Unknown properties are left alone for the validation pipe
 * to strip. Runs before the global `ValidationPipe`.
 */
@Injectable()
export class CaseInsensitiveKeysPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type !== 'body' && metadata.type !== 'query') return value;
    const target = metadata.metatype as Ctor | undefined;
    if (!target || isPrimitiveType(target)) return value;
    return foldKeys(value, target);
  }
}

const propertyCache = new WeakMap<Ctor, Map<string, string>>();

function foldKeys(value: unknown, target: Ctor): unknown {
  if (Array.isArray(value)) return value.map((item) => foldKeys(item, target));
  if (!isPlainObject(value)) return value;
  const known = knownProperties(target);
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const name = known.get(key.toLowerCase()) ?? key;
    // An exact-case key wins over a differently cased duplicate.
    if (name in result && key !== name) continue;
    const nested = nestedType(target, name);
    result[name] = nested ? foldKeys(item, nested) : item;
  }
  return result;
}

function knownProperties(target: Ctor): Map<string, string> {
  let known = propertyCache.get(target);
  if (!known) {
    known = new Map();
    const validations = getMetadataStorage().getTargetValidationMetadatas(target, '', true, false);
    for (const { propertyName } of validations) known.set(propertyName.toLowerCase(), propertyName);
    for (const { propertyName } of defaultMetadataStorage.getExposedMetadatas(target)) {
      if (propertyName) known.set(propertyName.toLowerCase(), propertyName);
    }
    propertyCache.set(target, known);
  }
  return known;
}

function nestedType(target: Ctor, property: string): Ctor | undefined {
  const meta = defaultMetadataStorage.findTypeMetadata(target, property);
  if (!meta) return undefined;
  const type = meta.typeFunction() as Ctor | undefined;
  return type && !isPrimitiveType(type) ? type : undefined;
}

/** Parsed JSON objects, and query objects (fast-querystring builds them on a null-prototype base). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === null || proto === Object.prototype || Object.getPrototypeOf(proto) === null;
}

function isPrimitiveType(type: unknown): boolean {
  return [String, Number, Boolean, Array, Object, Date].includes(type as never);
}
