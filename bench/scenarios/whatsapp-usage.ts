import { Client } from 'pg';
import { settle } from '../context.js';
import { latencyScenario } from './latency.js';
import type { Scenario } from './index.js';

/** A month at 4 messages/s: 30 days × 86,400 s × 4. */
const MESSAGES = Number(process.env.BENCH_USAGE_MESSAGES ?? 30 * 86_400 * 4);
/** Other workspaces holding a month like this one in the same rollup table. */
const OTHER_WORKSPACES = Number(process.env.BENCH_USAGE_WORKSPACES ?? 500);
/** Priced outbound events seeded in conversation_events (the query must not read them). */
const EVENTS = Number(process.env.BENCH_USAGE_EVENTS ?? 1_000_000);
const CAMPAIGNS = 60;
const DAYS = 30;

/**
 * Each generated message's pricing, by `r` = a hash of its number mod 100: a campaign-heavy month.
 * Campaign messages (marketing, marketing_lite) carry the campaign sending in their twelve hours.
 */
const MESSAGE_MIX = `
  CASE WHEN r < 55 THEN 'marketing' WHEN r < 60 THEN 'marketing_lite' WHEN r < 80 THEN 'utility' WHEN r < 90 THEN 'service'
       WHEN r < 94 THEN 'utility' WHEN r < 97 THEN 'authentication'
       WHEN r < 99 THEN 'authentication_international' ELSE 'marketing' END AS category,
  CASE WHEN r < 80 THEN 'regular' WHEN r < 94 THEN 'free_customer_service' WHEN r < 99 THEN 'regular' ELSE 'free_entry_point' END AS pricing_type,
  CASE WHEN r < 60 THEN md5('bench-campaign-' || (g * ${CAMPAIGNS}::bigint / $3::bigint))::uuid
       ELSE '00000000-0000-0000-0000-000000000000'::uuid END AS campaign_id`;

const dayOf = (date: Date) => date.toISOString().slice(0, 10);

interface Seeded {
  channelId: string;
  from: string;
  to: string;
  rollupRows: number;
  tableRows: number;
  events: number;
  seconds: number;
}

/**
 * The rollup as statuses fill it: one count per message, into the row of its UTC day, channel,
 * campaign, category, pricing type and chargeability (what WhatsAppUsageRepository.add upserts).
 * The month's MESSAGES messages are generated one by one (the g-th at start + g/4 s) and summed
 * into those rows in one INSERT … SELECT … GROUP BY, so the counts are exactly what 10 million
 * upserts would leave. Then OTHER_WORKSPACES other workspaces get a month of the same shape, so the
 * query reads one workspace's slice of a large table, and EVENTS priced outbound events are
 * written to conversation_events as the statuses would leave them.
 */
async function seed(databaseUrl: string, workspaceId: string, channelId: string): Promise<Seeded> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  const started = Date.now();
  try {
    await client.query('SET synchronous_commit = off');
    await client.query('SET work_mem = "256MB"');
    const start = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate() - (DAYS - 1)));
    const inserted = await client.query(
      `INSERT INTO whatsapp_usage_days (workspace_id, channel_id, day, campaign_id, category, pricing_type, billable, messages)
       SELECT $1, $2, day, campaign_id, category, pricing_type, pricing_type = 'regular', count(*)
         FROM (SELECT ($4::timestamptz + make_interval(secs => g / 4.0))::date AS day, ${MESSAGE_MIX}
                 FROM (SELECT g, abs(hashint8(g)) % 100 AS r FROM generate_series(0::bigint, $3::bigint - 1) AS g) AS m) AS priced
        GROUP BY day, campaign_id, category, pricing_type`,
      [workspaceId, channelId, MESSAGES, start.toISOString()],
    );
    await client.query(
      `INSERT INTO whatsapp_usage_days (workspace_id, channel_id, day, campaign_id, category, pricing_type, billable, messages)
       SELECT w.id, w.channel_id, u.day, u.campaign_id, u.category, u.pricing_type, u.billable, u.messages
         FROM (SELECT gen_random_uuid() AS id, gen_random_uuid() AS channel_id FROM generate_series(1, $2)) AS w
        CROSS JOIN (SELECT * FROM whatsapp_usage_days WHERE workspace_id = $1) AS u`,
      [workspaceId, OTHER_WORKSPACES],
    );
    if (EVENTS > 0) {
      // One conversation per 100 events, the events spread over the last days of the month.
      await client.query(
        `INSERT INTO contacts (id, workspace_id, name, phone_number, contact_type, creation_time, last_modification_time)
         SELECT gen_random_uuid(), $1, 'Usage contact ' || i, '+1' || (4000000000 + i)::text, 1, now(), now()
           FROM generate_series(1, $2::int) AS i`,
        [workspaceId, Math.ceil(EVENTS / 100)],
      );
      await client.query(
        `INSERT INTO conversations (id, workspace_id, channel_id, contact_id, status, last_activity_at, last_events_count, creation_time)
         SELECT gen_random_uuid(), $1, $2, c.id, 1, now(), 100, now() FROM contacts c WHERE c.workspace_id = $1 AND c.name LIKE 'Usage contact %'`,
        [workspaceId, channelId],
      );
      await client.query(
        `INSERT INTO conversation_events (id, workspace_id, conversation_id, contact_id, channel_id, source_type, source_id, direction,
                                          creation_time, status, body, is_ai, is_billable, pricing, attachment)
         SELECT gen_random_uuid(), $1, v.id, v.contact_id, v.channel_id, 2, 'wamid.usage-' || v.id || '-' || k, 2,
                now() - make_interval(secs => (k * 1000 + abs(hashtext(v.id::text)) % 1000) / 4.0), 'Delivered', 'Our offers', false,
                k % 10 < 8,
                jsonb_build_object('model', 'PMP', 'type', CASE WHEN k % 10 < 8 THEN 'regular' ELSE 'free_customer_service' END,
                                   'category', CASE WHEN k % 10 < 6 THEN 'marketing' WHEN k % 10 < 8 THEN 'utility' ELSE 'service' END,
                                   'billable', k % 10 < 8),
                jsonb_build_object('messageType', 'Template')
           FROM conversations v CROSS JOIN generate_series(1, 100) AS k WHERE v.workspace_id = $1 AND v.channel_id = $2`,
        [workspaceId, channelId],
      );
    }
    for (const table of ['whatsapp_usage_days', 'conversations', 'conversation_events']) await client.query(`VACUUM ANALYZE ${table}`);
    const count = async (sql: string, params: unknown[]) => Number((await client.query(sql, params)).rows[0].n);
    return {
      channelId,
      from: dayOf(start),
      to: dayOf(new Date(start.getTime() + (DAYS - 1) * 86_400_000)),
      rollupRows: inserted.rowCount ?? 0,
      tableRows: await count('SELECT count(*) AS n FROM whatsapp_usage_days', []),
      events: await count('SELECT count(*) AS n FROM conversation_events WHERE workspace_id = $1 AND pricing IS NOT NULL', [workspaceId]),
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    await client.end();
  }
}

/** What the usage query reads: its plan's tables and shared buffers (EXPLAIN ANALYZE of the repository's statement). */
async function explain(
  databaseUrl: string,
  workspaceId: string,
  seeded: Seeded,
): Promise<{ tables: string[]; buffers: number; ms: number }> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)
       SELECT category AS key, category, billable, sum(messages)::bigint AS messages FROM whatsapp_usage_days
        WHERE workspace_id = $1 AND day BETWEEN $2::date AND $3::date AND channel_id = $4
        GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
      [workspaceId, seeded.from, seeded.to, seeded.channelId],
    );
    const [plan] = rows[0]['QUERY PLAN'] as Array<{ Plan: PlanNode; 'Execution Time': number }>;
    const tables = new Set<string>();
    const walk = (node: PlanNode) => {
      if (node['Relation Name']) tables.add(node['Relation Name']);
      node.Plans?.forEach(walk);
    };
    walk(plan.Plan);
    if (process.env.BENCH_VERBOSE) console.log(JSON.stringify(plan, null, 2));
    return {
      tables: [...tables],
      buffers: (plan.Plan['Shared Hit Blocks'] ?? 0) + (plan.Plan['Shared Read Blocks'] ?? 0),
      ms: plan['Execution Time'],
    };
  } finally {
    await client.end();
  }
}

interface PlanNode {
  'Relation Name'?: string;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

export const usageScenario: Scenario = {
  name: `usage: GET /v1/whatsapp/usage, 30 days by category over ${(MESSAGES / 1e6).toFixed(1)} M messages (a month at 4 msg/s)`,
  async run(ctx) {
    const channel = await ctx.admin('POST', `/admin/v1/workspaces/${ctx.workspaceId}/channels`, {
      name: 'Usage line',
      type: 2,
      phoneNumber: '+14155557900',
      whatsApp: { provider: 'sandbox' },
    });
    const seeded = await seed(ctx.databaseUrl, ctx.workspaceId, channel.id);
    await settle(ctx.databaseUrl);
    // With a rate card, as a workspace that wants estimatedCost has one (one more read per answer).
    await ctx.call('PUT', '/v1/whatsapp/rate-card', {
      currency: 'EUR',
      perCategory: {
        marketing: 0.0456,
        marketing_lite: 0.0456,
        utility: 0.0132,
        authentication: 0.0132,
        authentication_international: 0.0348,
      },
    });
    const path = `/v1/whatsapp/usage?channelId=${seeded.channelId}&from=${seeded.from}&to=${seeded.to}&groupBy=category`;
    const answer = await ctx.call('GET', path);
    const counted = answer.totals.billable + answer.totals.free;
    const plan = await explain(ctx.databaseUrl, ctx.workspaceId, seeded);
    const result = await latencyScenario(this.name, 100, {
      url: `${ctx.apiUrl}${path}`,
      headers: { authorization: `Bearer ${ctx.token}` },
    });
    result.checks.unshift(
      {
        what:
          `seeded in ${seeded.seconds.toFixed(1)} s: ${seeded.rollupRows} rollup rows for the month, ${seeded.tableRows.toLocaleString('en-US')} in the table ` +
          `(${OTHER_WORKSPACES} other workspaces), ${seeded.events.toLocaleString('en-US')} priced events`,
        ok: true,
      },
      {
        what: `the answer counts ${counted.toLocaleString('en-US')} of ${MESSAGES.toLocaleString('en-US')} messages`,
        ok: counted === MESSAGES,
      },
      {
        what: `the query reads ${plan.tables.join(', ')} only: ${plan.buffers} buffers, ${plan.ms.toFixed(2)} ms in PostgreSQL`,
        ok: plan.tables.length === 1 && plan.tables[0] === 'whatsapp_usage_days',
      },
    );
    return result;
  },
};
