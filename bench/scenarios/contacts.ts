import { Client } from 'pg';
import { settle, type BenchContext } from '../context.js';
import { seedContacts, type SeededContacts } from '../seed-contacts.js';
import { compareWithBaseline, type Scenario } from './index.js';
import { latencyScenario } from './latency.js';

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 1_000_000);

interface Seeded extends SeededContacts {
  contactIds: string[];
}

/** The seeded contacts; seeds them first when the seeding scenario was filtered out of this run. */
export async function seeded(ctx: BenchContext): Promise<Seeded> {
  if (!ctx.shared.has('contacts')) await seedScenario.run(ctx);
  return ctx.shared.get('contacts') as Seeded;
}

const pick = <T>(items: T[]) => items[Math.floor(Math.random() * items.length)];

export const seedScenario: Scenario = {
  name: `contacts: seed ${CONTACTS.toLocaleString('en-US')} × 5 values`,
  async run(ctx) {
    const result = await seedContacts(ctx.databaseUrl, ctx.workspaceId, CONTACTS);
    const client = new Client({ connectionString: ctx.databaseUrl });
    await client.connect();
    const { rows } = await client.query('SELECT id FROM contacts WHERE workspace_id = $1 ORDER BY random() LIMIT 20000', [ctx.workspaceId]);
    if (process.env.BENCH_VERBOSE) await explain(client, ctx.workspaceId, result.properties.tier);
    await client.end();
    await settle(ctx.databaseUrl);
    ctx.shared.set('contacts', { ...result, contactIds: rows.map((r) => r.id as string) });
    return { name: this.name, checks: [{ what: `${result.seconds.toFixed(1)} s ≤ 180 s`, ok: result.seconds <= 180 }] };
  },
};

export const setPropertyScenario: Scenario = {
  name: 'PUT Set Property Value on Contact (Number)',
  async run(ctx) {
    const { contactIds, properties } = await seeded(ctx);
    const result = await compareWithBaseline(ctx, {
      name: this.name,
      targetRatio: 0.65,
      costFloor: 0.38,
      baselineScript: 'dist/bench/baselines/bare-set-property.js',
      method: 'PUT',
      headers: { authorization: `Bearer ${ctx.token}`, 'content-type': 'application/json' },
      next: () => ({
        path: `/v1/contacts/${pick(contactIds)}/properties/${properties.score}`,
        body: JSON.stringify({ value: Math.round(Math.random() * 1e6) / 100 }),
      }),
    });
    const p99Limit = 1.5 * result.baseline!.p99Ms;
    return {
      ...result,
      checks: [
        ...result.checks,
        { what: `API p99 ${result.api!.p99Ms} ms ≤ 1.5 × the baseline's ${result.baseline!.p99Ms} ms`, ok: result.api!.p99Ms <= p99Limit },
      ],
    };
  },
};

export const searchScenario: Scenario = {
  name: 'POST /v1/contacts/search (Select = one of 1,000 options, ~0.1%)',
  async run(ctx) {
    const { properties } = await seeded(ctx);
    return latencyScenario(this.name, 30, {
      url: `${ctx.apiUrl}/v1/contacts/search`,
      method: 'POST',
      headers: { authorization: `Bearer ${ctx.token}`, 'content-type': 'application/json' },
      body: () =>
        JSON.stringify({
          maxResultCount: 20,
          customPropertyFilters: [{ propertyDefinitionId: properties.tier, operator: 1, value: `T${Math.floor(Math.random() * 1000)}` }],
        }),
    });
  },
};

export const listScenario: Scenario = {
  name: 'GET /v1/contacts first page with totalCount',
  async run(ctx) {
    await seeded(ctx);
    return latencyScenario(this.name, 50, {
      url: `${ctx.apiUrl}/v1/contacts?MaxResultCount=20`,
      headers: { authorization: `Bearer ${ctx.token}` },
    });
  },
};

export const vcardScenario: Scenario = {
  name: 'POST /v1/contacts/import/vcards (10,000 cards)',
  async run(ctx) {
    const timings: number[] = [];
    for (let round = 0; round < 3; round++) {
      const cards = Array.from({ length: 10_000 }, (_, i) => {
        const n = `${round * 10_000 + i}`;
        const phone = `1646${555 + round}${String(i).padStart(4, '0')}`;
        return `BEGIN:VCARD\r\nVERSION:3.0\r\nN:Import;Person ${n};;;\r\nFN:Person ${n}\r\nORG:Bench Ltd\r\nTEL;type=CELL;waid=${phone}:+${phone}\r\nEMAIL:p${n}@bench.example\r\nEND:VCARD`;
      });
      const started = performance.now();
      const result = await ctx.call('POST', '/v1/contacts/import/vcards', { vCards: cards });
      timings.push(performance.now() - started);
      if (result.createdCount !== 10_000)
        throw new Error(
          `expected 10,000 created, got ${JSON.stringify({ ...result, contactIds: undefined, errors: result.errors.slice(0, 3) })}`,
        );
    }
    const worst = Math.max(...timings);
    return {
      name: this.name,
      checks: [{ what: `${timings.map((t) => Math.round(t)).join(', ')} ms; worst ≤ 2000 ms`, ok: worst <= 2000 }],
    };
  },
};

async function explain(client: Client, workspaceId: string, tierId: string): Promise<void> {
  const queries = {
    'Get Contacts, first page': `SELECT c.* FROM contacts c WHERE c.workspace_id = $1 ORDER BY c.creation_time DESC, c.id DESC LIMIT 20`,
    'Get Contacts, totalCount': `SELECT coalesce(sum(total), 0)::int AS total FROM contact_counts WHERE workspace_id = $1`,
    'Search, Select equality, page': `SELECT c.* FROM contacts c WHERE c.workspace_id = $1 AND EXISTS (SELECT 1 FROM contact_property_values pv0 WHERE pv0.workspace_id = c.workspace_id AND pv0.contact_id = c.id AND pv0.property_definition_id = $2 AND pv0.select_value = 'T7') ORDER BY c.creation_time DESC, c.id DESC LIMIT 20`,
    'Search, Select equality, count': `SELECT count(*) FROM contacts c WHERE c.workspace_id = $1 AND EXISTS (SELECT 1 FROM contact_property_values pv0 WHERE pv0.workspace_id = c.workspace_id AND pv0.contact_id = c.id AND pv0.property_definition_id = $2 AND pv0.select_value = 'T7')`,
  };
  for (const [name, sql] of Object.entries(queries)) {
    const params = sql.includes('$2') ? [workspaceId, tierId] : [workspaceId];
    const { rows } = await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, params);
    console.log(`\n-- ${name}\n${rows.map((r) => r['QUERY PLAN']).join('\n')}`);
  }
}
