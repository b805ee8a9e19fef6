// Seeds one workspace with N contacts (default 1,000,000) and 5 custom property values each, with
// set-based INSERT … SELECT over generate_series (no row-by-row saves). Used by the contact
// benchmarks; runnable alone: node dist/bench/seed-contacts.js <databaseUrl> <workspaceId> [count].
import { Client } from 'pg';

export interface SeededContacts {
  count: number;
  seconds: number;
  /** Property definition ids by name: Tier (Select, 1,000 options), Plan (Select), Score, Since, City. */
  properties: Record<'tier' | 'plan' | 'score' | 'since' | 'city', string>;
}

const UUID7 = `CREATE FUNCTION pg_temp.uuid7(ts timestamptz) RETURNS uuid LANGUAGE sql VOLATILE AS $$
  SELECT encode(overlay(uuid_send(gen_random_uuid()) PLACING substring(int8send(floor(extract(epoch FROM ts) * 1000)::bigint) FROM 3) FROM 1 FOR 6), 'hex')::uuid
$$`;

export async function seedContacts(databaseUrl: string, workspaceId: string, count = 1_000_000): Promise<SeededContacts> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  const started = Date.now();
  try {
    await client.query('SET synchronous_commit = off');
    await client.query("SET maintenance_work_mem = '512MB'");
    await client.query(UUID7);
    const tierOptions = JSON.stringify(Array.from({ length: 1000 }, (_, i) => ({ value: `T${i}`, color: null })));
    const definitions = [
      ['tier', 'Tier', 3, tierOptions],
      ['plan', 'Plan', 3, JSON.stringify(['Free', 'Pro', 'Team', 'Enterprise'].map((value) => ({ value, color: null })))],
      ['score', 'Score', 2, '[]'],
      ['since', 'Since', 4, '[]'],
      ['city', 'City', 1, '[]'],
    ] as const;
    const properties = {} as SeededContacts['properties'];
    for (const [key, name, type, options] of definitions) {
      const { rows } = await client.query(
        `INSERT INTO contact_property_definitions (id, workspace_id, name, normalized_name, key, type, is_required, select_options)
         VALUES (pg_temp.uuid7(now()), $1, $2::varchar, lower($2::varchar), $3, $4, false, $5::jsonb) RETURNING id`,
        [workspaceId, name, key, type, options],
      );
      properties[key] = rows[0].id;
    }
    await client.query(
      `INSERT INTO contacts (id, workspace_id, name, phone_number, contact_type, email, creation_time, last_modification_time)
       SELECT pg_temp.uuid7(t), $1, 'Contact ' || i, '+1' || (2000000000 + i)::text, 1, 'c' || i || '@example.com', t, t
         FROM generate_series(1, $2::int) AS i, LATERAL (SELECT now() - make_interval(secs => ($2::int - i)) AS t) AS ts`,
      [workspaceId, count],
    );
    await client.query(
      `INSERT INTO contact_property_values (id, workspace_id, contact_id, property_definition_id, text_value, number_value, date_value, select_value)
       SELECT gen_random_uuid(), c.workspace_id, c.id, d.id,
              CASE d.key WHEN 'city' THEN 'City ' || (abs(hashtext(c.id::text)) % 500) END,
              CASE d.key WHEN 'score' THEN (abs(hashtext(c.id::text)) % 10000) / 100.0 END,
              CASE d.key WHEN 'since' THEN timestamptz '2015-01-01' + make_interval(days => abs(hashtext(c.id::text)) % 3650) END,
              CASE d.key WHEN 'tier' THEN 'T' || (abs(hashtext(c.id::text)) % 1000)
                         WHEN 'plan' THEN (ARRAY['Free','Pro','Team','Enterprise'])[1 + abs(hashtext(c.id::text)) % 4] END
         FROM contacts c CROSS JOIN contact_property_definitions d
        WHERE c.workspace_id = $1 AND d.workspace_id = $1`,
      [workspaceId],
    );
    // What autovacuum would soon do on its own: statistics for the planner, visibility for index-only scans.
    await client.query('VACUUM ANALYZE contacts');
    await client.query('VACUUM ANALYZE contact_property_values');
    return { count, seconds: (Date.now() - started) / 1000, properties };
  } finally {
    await client.end();
  }
}

if (require.main === module) {
  const [databaseUrl, workspaceId, count] = process.argv.slice(2);
  seedContacts(databaseUrl, workspaceId, count ? Number(count) : undefined).then(
    (result) => console.log(`Seeded ${result.count} contacts with 5 values each in ${result.seconds.toFixed(1)} s`),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
