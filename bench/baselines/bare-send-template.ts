// Baseline for Send Template: bare Fastify + pg + ioredis doing the same reads and inserts in one
// transaction (channel, template, contact, open conversation, timeline event, conversation
// stamp, outbox row) and one queue push to Redis.
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import Redis from 'ioredis';
import { verifyBearer } from './bearer.js';
import { Pool, type PoolClient } from 'pg';

const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
/** Under the bench run's key prefix, which the run deletes when it ends. */
const QUEUE_KEY = `${process.env.REDIS_KEY_PREFIX ?? 'msgbench:baseline'}:baseline:whatsapp`;
const app = Fastify({ logger: false });

async function findOrInsert(
  client: PoolClient,
  select: string,
  insert: string,
  params: unknown[],
  insertParams: unknown[],
): Promise<string> {
  const found = await client.query(select, params);
  if (found.rows[0]) return found.rows[0].id;
  await client.query(insert, insertParams);
  return (await client.query(select, params)).rows[0].id;
}

app.get('/health/live', async () => ({ status: 'ok' }));
app.post<{
  Body: {
    channelId: string;
    templateName: string;
    language: string;
    toNumber: string;
    parameters: Array<{ values: Array<{ text: string }> }>;
  };
}>('/v1/whatsapp/service-account/sendTemplate', async (request, reply) => {
  const claims = verifyBearer(request.headers.authorization);
  if (!claims) return reply.code(401).send({ statusCode: 401 });
  const ws = claims.workspace_id;
  const body = request.body;
  const to = `+${body.toNumber.replace(/\D/g, '')}`;
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const channel = (
      await client.query('SELECT id FROM channels WHERE id = $1 AND workspace_id = $2 AND deletion_time IS NULL', [body.channelId, ws])
    ).rows[0];
    const template = (
      await client.query(
        `SELECT * FROM whatsapp_templates WHERE workspace_id = $1 AND channel_id = $2 AND name = $3 AND language = $4 AND status = 'APPROVED'`,
        [ws, body.channelId, body.templateName, body.language],
      )
    ).rows[0];
    if (!channel || !template) {
      await client.query('ROLLBACK');
      return reply.code(404).send({ statusCode: 404 });
    }
    const contactId = await findOrInsert(
      client,
      'SELECT id FROM contacts WHERE workspace_id = $1 AND phone_number = $2',
      `INSERT INTO contacts (id, workspace_id, name, phone_number, contact_type) VALUES ($1, $2, $3, $3, 1) ON CONFLICT DO NOTHING`,
      [ws, to],
      [randomUUID(), ws, to],
    );
    const conversationId = await findOrInsert(
      client,
      'SELECT id FROM conversations WHERE workspace_id = $1 AND channel_id = $2 AND contact_id = $3 AND status = 1',
      `INSERT INTO conversations (id, workspace_id, channel_id, contact_id, status, last_activity_at, last_events_count) VALUES ($1, $2, $3, $4, 1, now(), 0) ON CONFLICT DO NOTHING`,
      [ws, body.channelId, contactId],
      [randomUUID(), ws, body.channelId, contactId],
    );
    const eventId = randomUUID();
    const preview = `Hi ${body.parameters[0].values[0].text}`;
    await client.query(
      `INSERT INTO conversation_events (id, workspace_id, conversation_id, contact_id, channel_id, source_type, direction, creation_time, status, body, is_ai)
         VALUES ($1, $2, $3, $4, $5, 2, 2, now(), 'Pending', $6, false)`,
      [eventId, ws, conversationId, contactId, body.channelId, preview],
    );
    await client.query(
      `UPDATE conversations SET last_activity_at = now(), last_event_source_type = 2, last_event_direction = 2, last_event_status = 'Pending',
                last_event_preview_body = $2, last_event_occurred_at = now(), last_events_count = last_events_count + 1 WHERE id = $1`,
      [conversationId, preview],
    );
    const outboxId = randomUUID();
    const payload = { eventId, channelId: body.channelId, request: { to, template: { name: template.name } } };
    await client.query(`INSERT INTO outbox_messages (id, workspace_id, queue, job_name, payload) VALUES ($1, $2, 'baseline', 'send', $3)`, [
      outboxId,
      ws,
      payload,
    ]);
    await client.query('COMMIT');
    await redis.rpush(QUEUE_KEY, JSON.stringify({ id: outboxId, ...payload }));
    return { contactId, status: 'accepted', message: 'accepted', conversationEventId: eventId };
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    client.release();
  }
});
void app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
