// Baseline for Create Outbound IVR: bare Fastify + pg doing the same reads and inserts (the
// channel, the externalId lookup, the request row and its outbox row in one transaction).
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import { Pool } from 'pg';
import { verifyBearer } from './bearer.js';

const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
const app = Fastify({ logger: false });

interface Body {
  channelId: string;
  externalId?: string;
  destinationNumber: string;
  audioFileUrl: string;
  options: Array<{ digit: string; description: string }>;
  webhookUrl: string;
}

app.get('/health/live', async () => ({ status: 'ok' }));
app.post<{ Body: Body }>('/v1/outbound-ivr', async (request, reply) => {
  const claims = verifyBearer(request.headers.authorization);
  if (!claims) return reply.code(401).send({ statusCode: 401 });
  const ws = claims.workspace_id;
  const body = request.body;
  const channel = await pool.query(
    `SELECT id FROM channels WHERE id = $1 AND workspace_id = $2 AND deletion_time IS NULL AND voice_provider IS NOT NULL`,
    [body.channelId, ws],
  );
  if (!channel.rows[0]) return reply.code(404).send({ statusCode: 404 });
  if (body.externalId) {
    const existing = await pool.query('SELECT * FROM outbound_ivr_requests WHERE workspace_id = $1 AND external_id = $2', [
      ws,
      body.externalId,
    ]);
    if (existing.rows[0]) return existing.rows[0];
  }
  const id = randomUUID();
  const record = {
    id,
    workspaceId: ws,
    channelId: body.channelId,
    externalId: body.externalId ?? null,
    destinationNumber: `+${body.destinationNumber.replace(/\D/g, '')}`,
    audioFileUrl: body.audioFileUrl,
    options: body.options.map((o) => ({ ...o, responseMessageFileUrl: null })),
    webhookUrl: body.webhookUrl,
    status: 0,
    result: 0,
    creationTime: new Date().toISOString(),
  };
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO outbound_ivr_requests (id, workspace_id, channel_id, external_id, destination_number, audio_file_url, tts_voice, audio_type,
         options, webhook_url, max_audio_retries, input_timeout_ms, digit_timeout_ms, creation_time)
       VALUES ($1, $2, $3, $4, $5, $6, 1, 1, $7, $8, 2, 6000, 3000, now()) ON CONFLICT DO NOTHING`,
      [
        id,
        ws,
        body.channelId,
        record.externalId,
        record.destinationNumber,
        body.audioFileUrl,
        JSON.stringify(record.options),
        body.webhookUrl,
      ],
    );
    await client.query(
      `INSERT INTO outbox_messages (id, workspace_id, queue, job_name, payload) VALUES ($1, $2, 'baseline', 'place', $3)`,
      [randomUUID(), ws, { requestId: id }],
    );
    await client.query('COMMIT');
    return record;
  } catch (err) {
    await client.query('ROLLBACK');
    throw err;
  } finally {
    client.release();
  }
});
void app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
