import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { getMetadataStorage } from 'class-validator';
import { EnvSchema } from '../../src/config/env.schema.js';

/** `# NAME=value` lines of .env.example, each with the comment line above it. */
function documented(): Map<string, { value: string; meaning: string }> {
  const lines = readFileSync('.env.example', 'utf8').split('\n');
  const entries = new Map<string, { value: string; meaning: string }>();
  lines.forEach((line, i) => {
    const match = /^# ([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (match) entries.set(match[1], { value: match[2], meaning: (lines[i - 1] ?? '').replace(/^#\s*/, '') });
  });
  return entries;
}

describe('.env.example', () => {
  const variables = [
    ...new Set(
      getMetadataStorage()
        .getTargetValidationMetadatas(EnvSchema, '', true, false)
        .map((m) => m.propertyName),
    ),
  ];
  const entries = documented();

  it('lists every variable of the configuration schema, and nothing else', () => {
    assert.ok(variables.length > 40, `read ${variables.length} variables from the schema`);
    assert.deepEqual([...entries.keys()].sort(), [...variables].sort());
  });

  it('gives each its default and a one-line meaning', () => {
    const defaults = new EnvSchema() as unknown as Record<string, unknown>;
    for (const name of variables) {
      const entry = entries.get(name);
      assert.ok(entry, name);
      assert.ok(entry.meaning.length > 10 && !/^[A-Z_]+=/.test(entry.meaning), `${name} has a meaning line above it`);
      if (defaults[name] !== undefined) assert.equal(entry.value, String(defaults[name]), `${name}'s default`);
    }
  });

  it('changes nothing as it stands: every setting is commented out', () => {
    const active = readFileSync('.env.example', 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.startsWith('#'));
    assert.deepEqual(active, []);
  });
});
