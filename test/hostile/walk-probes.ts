import fc from 'fast-check';
import jwt from 'jsonwebtoken';
import {
  HOSTILE_BODIES,
  HOSTILE_IDS,
  HOSTILE_QUERY_VALUES,
  HOSTILE_VALUES,
  hostileJsonArbitrary,
  taintedStrings,
} from './hostile-values.js';
import { formatPath, pathsOf, spliceJson, valueAt, withoutPath, type JsonPath } from './json-splice.js';
import type { ProbeBody, ProbeCase } from './probe.js';
import { COSTLY_OPERATIONS, type ValidInputs, type WalkOperation } from './walk-operations.js';

/** Who the walk is: a workspace token and the admin key. */
export interface Credentials {
  bearer: string;
  adminKey: string;
  jwtSecret: string;
  apiScope: string;
  serviceAccountId: string;
  workspaceId: string;
}

/** Builds the requests of one operation: valid ones, and hostile ones in every input it has. */
export class ProbeBuilder {
  constructor(
    private readonly op: WalkOperation,
    private readonly inputs: ValidInputs,
    private readonly credentials: Credentials,
    /** Position of the operation in the walk: picks which odd tokens it gets. */
    private readonly ordinal = 0,
  ) {}

  /** Spends a scrypt hash on every accepted call. */
  get costly(): boolean {
    return this.op.operationId in COSTLY_OPERATIONS;
  }

  /** The first combination of valid path ids. */
  private validIds(choice = 0): Record<string, string> {
    return Object.fromEntries(Object.entries(this.inputs.ids).map(([name, values]) => [name, values[Math.min(choice, values.length - 1)]]));
  }

  private idChoices(): number {
    return Math.max(1, ...Object.values(this.inputs.ids).map((values) => values.length));
  }

  private url(ids: Record<string, string>, query: string): string {
    const path = this.op.path.replace(/\{([^}]+)\}/g, (_, name: string) => ids[name]);
    return query ? `${path}?${query}` : path;
  }

  private authHeaders(): Record<string, string> {
    if (this.op.auth === 'admin') return { authorization: `Bearer ${this.credentials.adminKey}` };
    if (this.op.auth === 'bearer') return { authorization: `Bearer ${this.credentials.bearer}` };
    return {};
  }

  private probe(
    label: string,
    parts: { ids?: Record<string, string>; query?: string; body?: () => ProbeBody; headers?: Record<string, string> },
  ): ProbeCase {
    return {
      operationId: this.op.operationId,
      label,
      method: this.op.method,
      url: this.url(parts.ids ?? this.validIds(), parts.query ?? ''),
      headers: { ...this.authHeaders(), ...parts.headers },
      body: parts.body ?? (() => undefined),
    };
  }

  private validQuery(): string {
    return new URLSearchParams(this.inputs.query).toString();
  }

  private validBody(ids: Record<string, string>): unknown {
    return this.inputs.body?.(ids);
  }

  private bodyText(ids: Record<string, string>): ProbeBody {
    if (this.op.bodyType === 'multipart') return uploadForm(this.op, 'walk.pdf');
    const body = this.validBody(ids);
    return body === undefined ? undefined : JSON.stringify(body);
  }

  /** The valid call, once for each choice of path ids. */
  valid(): ProbeCase[] {
    return Array.from({ length: this.idChoices() }, (_, choice) => {
      const ids = this.validIds(choice);
      return this.probe(`valid${choice ? ` #${choice + 1}` : ''}`, { ids, query: this.validQuery(), body: () => this.bodyText(ids) });
    });
  }

  /** Every path parameter in turn replaced by an unknown or malformed id. */
  pathProbes(): ProbeCase[] {
    return this.op.pathParams.flatMap((name) =>
      HOSTILE_IDS.map(({ label, raw }) => {
        const ids = { ...this.validIds(), [name]: raw };
        return this.probe(`path ${name} = ${label}`, { ids, body: () => this.bodyText(this.validIds()) });
      }),
    );
  }

  /** Every query parameter in turn with hostile values, an unknown one with bad text, and hostile query shapes. */
  queryProbes(): ProbeCase[] {
    const body = () => this.bodyText(this.validIds());
    // An operation without query parameters ignores the query; one probe shows the text rule holds there too.
    if (this.op.queryParams.length === 0) return [this.probe('query unknownParameter = NUL', { query: 'unknownParameter=%00', body })];
    const values = [
      ...this.op.queryParams.flatMap((name) => HOSTILE_QUERY_VALUES.map((value) => ({ name, ...value }))),
      ...HOSTILE_QUERY_VALUES.filter(({ label }) => /NUL|surrogate|__proto__/.test(label)).map((value) => ({
        name: 'unknownParameter',
        ...value,
      })),
    ];
    const names = [...this.op.queryParams, 'unknownParameter'];
    const shapes = [
      { label: 'repeated', query: names.map((name) => `${name}=1&${name}=2`).join('&') },
      { label: 'bracketed', query: names.map((name) => `${name}[]=1&${name}[a]=2`).join('&') },
      { label: 'PascalCase NUL', query: names.map((name) => `${name[0].toUpperCase()}${name.slice(1)}=%00`).join('&') },
      { label: '__proto__', query: '__proto__=1&__proto__[polluted]=1&constructor[prototype][polluted]=1' },
      { label: '1 MB', query: `${names[0]}=${'a'.repeat(1024 * 1024)}` },
    ];
    return [
      ...values.map(({ name, label, raw }) => this.probe(`query ${name} = ${label}`, { query: `${name}=${raw}`, body })),
      ...shapes.map(({ label, query }) => this.probe(`query ${label}`, { query, body })),
    ];
  }

  /** Hostile values at every property of the valid body (and every property it leaves out), whole hostile bodies, odd media types. */
  bodyProbes(): ProbeCase[] {
    if (this.op.bodyType === 'multipart') return this.uploadProbes();
    if (this.op.bodyType !== 'json') return [];
    const ids = this.validIds();
    const probes: ProbeCase[] = HOSTILE_BODIES.map(({ label, json }) => this.probe(label, { body: () => json }));
    for (const path of this.bodyPaths(ids)) {
      const where = `body.${formatPath(path)}`;
      const base = () => this.validBody(ids);
      const current = valueAt(base(), path);
      const tiers = path.length > 1 ? ['core'] : this.costly ? ['core', 'top'] : ['core', 'top', 'heavy'];
      const kind = Array.isArray(current) ? 'array' : typeof current;
      const fits = (v: (typeof HOSTILE_VALUES)[number]) => !v.onlyFor || current === undefined || v.onlyFor === kind;
      const values = [
        ...HOSTILE_VALUES.filter((v) => tiers.includes(v.tier) && fits(v)),
        ...(typeof current === 'string' ? taintedStrings(current) : []),
      ];
      for (const { label, json } of values)
        probes.push(this.probe(`${where} = ${label}`, { body: () => spliceJson(base(), { path, json }) }));
      if (current !== undefined) probes.push(this.probe(`${where} missing`, { body: () => withoutPath(base(), path) }));
    }
    probes.push(...this.mediaTypeProbes(ids));
    return probes;
  }

  /** Paths of the valid body, plus the schema's top-level properties it does not send. */
  private bodyPaths(ids: Record<string, string>): JsonPath[] {
    const body = this.validBody(ids);
    const sent = pathsOf(body);
    const absent = this.op.bodyProperties.filter((name) => !(body && typeof body === 'object' && name in body)).map((name) => [name]);
    return [...sent, ...absent];
  }

  private mediaTypeProbes(ids: Record<string, string>): ProbeCase[] {
    const json = () => JSON.stringify(this.validBody(ids));
    const form = () => {
      const data = new FormData();
      data.set('name', 'x');
      return data;
    };
    return [
      this.probe('media type text/plain', { body: json, headers: { 'content-type': 'text/plain' } }),
      this.probe('media type json with utf-16', { body: json, headers: { 'content-type': 'application/json; charset=utf-16le' } }),
      this.probe('media type form with NUL and brackets', {
        body: () => 'name=%00&phoneNumber=%ED%A0%80&a[b][c]=1&__proto__[polluted]=1',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      this.probe('media type multipart', { body: form }),
      this.probe('empty json body', { body: () => '' }),
    ];
  }

  /** Multipart uploads: hostile file names, field names and extra fields. */
  private uploadProbes(): ProbeCase[] {
    const names = ['a\u0000b.pdf', '\ud800.pdf', `${'a'.repeat(5000)}.pdf`, '../../etc/passwd', 'con.pdf', ''];
    return [
      ...names.map((name) => this.probe(`upload named ${JSON.stringify(name).slice(0, 40)}`, { body: () => uploadForm(this.op, name) })),
      this.probe('upload in a wrong field', { body: () => uploadForm(this.op, 'walk.pdf', 'other') }),
      this.probe('upload json instead', { body: () => '{"file":"x"}' }),
      this.probe('upload with no body', { headers: { 'content-type': 'multipart/form-data; boundary=x' }, body: () => '' }),
    ];
  }

  /** Odd Idempotency-Key values, for operations that take one. */
  headerProbes(): ProbeCase[] {
    if (!this.op.headerParams.some((name) => name.toLowerCase() === 'idempotency-key')) return [];
    const body = () => this.bodyText(this.validIds());
    return ['', ' ', 'k'.repeat(300), '\u00ff\u00fe', 'a\tb'].map((key) =>
      this.probe(`Idempotency-Key ${JSON.stringify(key).slice(0, 20)}`, { body, headers: { 'idempotency-key': key } }),
    );
  }

  /** Tokens signed with the right key but odd claims, and broken credentials (a quarter of them per operation). */
  authProbes(): ProbeCase[] {
    if (this.op.auth === 'public') return [];
    const body = () => this.bodyText(this.validIds());
    const c = this.credentials;
    const sign = (claims: Record<string, unknown>) =>
      jwt.sign(claims, c.jwtSecret, { algorithm: 'HS256', issuer: 'messaging-service', expiresIn: 600 });
    const good = { sub: c.serviceAccountId, workspace_id: c.workspaceId, scope: c.apiScope };
    const tokens: Record<string, string> = {
      'no scope': sign({ sub: good.sub, workspace_id: good.workspace_id }),
      'numeric scope': sign({ ...good, scope: 42 }),
      'array scope': sign({ ...good, scope: [c.apiScope] }),
      'null scope': sign({ ...good, scope: null }),
      'non-uuid sub': sign({ ...good, sub: 'not-a-uuid' }),
      'numeric sub': sign({ ...good, sub: 42 }),
      'no sub': sign({ workspace_id: good.workspace_id, scope: good.scope }),
      'non-uuid workspace': sign({ ...good, workspace_id: 'not-a-uuid' }),
      'no workspace': sign({ sub: good.sub, scope: good.scope }),
      'NUL in claims': sign({ ...good, sub: '\u0000', workspace_id: '\ud800' }),
      'unsigned (alg none)': `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from(JSON.stringify(good)).toString('base64url')}.`,
      garbage: 'a.b.c',
      '10 KB': 'x'.repeat(10_000),
    };
    // Each operation gets a quarter of them, in turn: every token still meets every kind of guard many times.
    return Object.entries(tokens)
      .filter((_, i) => (i + this.ordinal) % 4 === 0)
      .map(([label, token]) => this.probe(`token ${label}`, { body, headers: { authorization: `Bearer ${token}` } }));
  }

  /** `runs` random cases: one to three properties of the valid body (or query parameters) replaced by generated hostile values. */
  randomProbes(seed: number, runs: number): ProbeCase[] {
    const ids = this.validIds();
    const paths = this.op.bodyType === 'json' ? this.bodyPaths(ids) : [];
    const targets = [...paths.map((path) => ({ path })), ...this.op.queryParams.map((name) => ({ query: name }))];
    if (targets.length === 0) return [];
    const arbitrary = fc.array(fc.tuple(fc.constantFrom(...targets), hostileJsonArbitrary), { minLength: 1, maxLength: 3 });
    return fc.sample(arbitrary, { seed, numRuns: runs }).map((changes) => {
      const bodyChanges = changes.flatMap(([target, value]) => ('path' in target ? [{ path: target.path, json: value.json }] : []));
      const body = () => (this.op.bodyType === 'json' ? spliceJson(this.validBody(ids), ...bodyChanges) : undefined);
      const query = new URLSearchParams();
      for (const [target, value] of changes) if ('query' in target) query.append(target.query, jsonToQueryValue(value.json));
      const label = `random: ${changes.map(([t, v]) => `${'path' in t ? `body.${formatPath(t.path)}` : `query ${t.query}`} = ${v.label}`).join(', ')}`;
      return this.probe(label, { body, query: query.toString() });
    });
  }
}

/** A JSON value as a query parameter would carry it: strings bare, anything else as its JSON text. */
function jsonToQueryValue(json: string): string {
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === 'string' ? value : json;
  } catch {
    return json;
  }
}

const PDF = Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n');

/** 0.1 s of silence: WAV, 8 kHz mono 16-bit PCM. */
function silentWav(): Buffer {
  const data = Buffer.alloc(1600);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(16000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

/** A small valid upload for the operation: audio for the audio upload, a PDF otherwise. */
function uploadForm(op: WalkOperation, fileName: string, field = op.bodyProperties[0] ?? 'file'): FormData {
  const audio = /audio/i.test(field);
  const form = new FormData();
  form.set(field, new Blob([audio ? silentWav() : PDF], { type: audio ? 'audio/wav' : 'application/pdf' }), fileName);
  return form;
}
