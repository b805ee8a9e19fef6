// Baseline of the message loop: raw pg, ioredis and node:http (keep-alive agents, as the service's
// worker calls the Cloud API; undici is not a dependency here) doing the loop's durable work per
// message as leanly as honest code can, in one process, with every write in the service's own
// tables (so the same indexes and triggers):
// - Send Template: one statement writes the event, stamps its conversation and writes the outbox
//   row (a first message to a number creates its contact and conversation first), then an RPUSH.
// - Sending: jobs popped in batches, each POSTed to the Cloud API; one statement per batch moves the
//   events to Sent with their wamid, completes their outbox rows and writes their webhook rows.
// - Notifications: the edge checks X-Hub-Signature-256 and stores the body (one INSERT) before
//   answering 200; a loop takes what arrived every 20 ms and, per round, one statement moves the
//   statuses forward (and writes their webhook rows; a status reported after a later one, Meta's
//   `delivered` after its `read`, moves nothing but gets its webhook once, as the service's do), one
//   records the replies (event, conversation stamp, webhook rows), one marks the notifications
//   processed. A status for a message whose send is not recorded yet (Meta answered before the
//   send loop committed) is looked up (one read, only then) and tried again a second later, its
//   notification marked processed when that is done.
// - Webhooks: each row POSTed, signed (Standard Webhooks' HMAC), to the channel's URL; one UPDATE
//   per batch marks them delivered.
// What it leaves out, as a lower bound may: retries of sends and webhooks, recovery of rows left by a crash, senders
// that are not yet contacts, every check of the API's request validation beyond the token.
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import Redis from 'ioredis';
import { Pool } from 'pg';
import { verifyBearer } from './bearer.js';
import { inTransaction } from './transaction.js';

const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
/** The send loop's own connection: it blocks in BLPOP while there is nothing to send. */
const queue = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const QUEUE_KEY = `${process.env.REDIS_KEY_PREFIX ?? 'msgbench:baseline'}:baseline:loop`;
const GRAPH_URL = process.env.WHATSAPP_GRAPH_URL as string;
const PHONE_NUMBER_ID = process.env.PHONE_NUMBER_ID as string;
const CHANNEL_ID = process.env.CHANNEL_ID as string;
const APP_SECRET = process.env.APP_SECRET as string;
const WEBHOOK_URL = process.env.WEBHOOK_URL as string;
const WEBHOOK_SECRET = Buffer.from('bare-loop-webhook-secret');
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const BATCH = 200;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---- Send Template -------------------------------------------------------------------------------

/** Event, conversation stamp and outbox row for a number with an open conversation; no row when there is none yet. */
const SEND_TO_KNOWN = `
  WITH conv AS (
    SELECT c.id, c.contact_id FROM conversations c JOIN contacts k ON k.id = c.contact_id
     WHERE k.workspace_id = $1 AND k.phone_number = $2 AND c.channel_id = $3 AND c.status = 1 LIMIT 1
  ), ev AS (
    INSERT INTO conversation_events (id, workspace_id, conversation_id, contact_id, channel_id, source_type, direction, creation_time, status, body, is_ai)
    SELECT $4, $1, conv.id, conv.contact_id, $3, 2, 2, now(), 'Pending', $5, false FROM conv
    RETURNING conversation_id, contact_id
  ), stamp AS (
    UPDATE conversations c SET last_activity_at = now(), last_event_source_type = 2, last_event_direction = 2, last_event_status = 'Pending',
           last_event_preview_body = $5, last_event_occurred_at = now(), last_events_count = c.last_events_count + 1
      FROM ev WHERE c.id = ev.conversation_id
  ), outbox AS (
    INSERT INTO outbox_messages (id, workspace_id, queue, job_name, payload) SELECT $6, $1, 'baseline', 'send', $7 FROM ev
  )
  SELECT contact_id FROM ev`;

async function createConversation(workspaceId: string, phone: string): Promise<void> {
  await inTransaction(pool, async (client) => {
    const contact = await client.query(
      `INSERT INTO contacts (id, workspace_id, name, phone_number, contact_type) VALUES ($1, $2, $3, $3, 1)
       ON CONFLICT DO NOTHING RETURNING id`,
      [randomUUID(), workspaceId, phone],
    );
    const contactId =
      contact.rows[0]?.id ??
      (await client.query('SELECT id FROM contacts WHERE workspace_id = $1 AND phone_number = $2', [workspaceId, phone])).rows[0].id;
    await client.query(
      `INSERT INTO conversations (id, workspace_id, channel_id, contact_id, status, last_activity_at, last_events_count)
       SELECT $1, $2, $3, $4, 1, now(), 0 WHERE NOT EXISTS (SELECT 1 FROM conversations WHERE channel_id = $3 AND contact_id = $4 AND status = 1)`,
      [randomUUID(), workspaceId, CHANNEL_ID, contactId],
    );
  });
}

interface SendBody {
  channelId: string;
  templateName: string;
  language: string;
  toNumber: string;
  parameters: Array<{ values: Array<{ text: string }> }>;
}

async function sendTemplate(authorization: string | undefined, body: SendBody): Promise<[number, unknown]> {
  const claims = verifyBearer(authorization);
  if (!claims) return [401, { statusCode: 401 }];
  if (body.channelId !== CHANNEL_ID) return [404, { statusCode: 404 }];
  const workspaceId = claims.workspace_id;
  const digits = body.toNumber.replace(/\D/g, '');
  const text = body.parameters[0].values[0].text;
  const eventId = randomUUID();
  const job = { eventId, to: digits, template: { name: body.templateName, language: body.language, text } };
  const params = [workspaceId, `+${digits}`, CHANNEL_ID, eventId, `Hi ${text}`, randomUUID(), job];
  let rows = (await pool.query(SEND_TO_KNOWN, params)).rows;
  if (rows.length === 0) {
    await createConversation(workspaceId, `+${digits}`);
    rows = (await pool.query(SEND_TO_KNOWN, params)).rows;
  }
  await redis.rpush(QUEUE_KEY, JSON.stringify({ outboxId: params[5], ...job }));
  return [202, { contactId: rows[0].contact_id, status: 'accepted', message: 'accepted', conversationEventId: eventId }];
}

// ---- Sending to the Cloud API ------------------------------------------------------------------

function postJson(url: string, body: string, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

interface Job {
  outboxId: string;
  eventId: string;
  to: string;
  template: { name: string; language: string; text: string };
}

/** Moves the sent events to Sent with their wamid, completes their outbox rows, writes their webhook rows. */
const MARK_SENT = `
  WITH sent AS (SELECT * FROM unnest($1::uuid[], $2::text[], $3::uuid[]) AS s(event_id, wamid, outbox_id)),
  moved AS (
    UPDATE conversation_events e SET status = 'Sent', source_id = sent.wamid FROM sent
     WHERE e.id = sent.event_id AND e.status = 'Pending'
     RETURNING e.id, e.workspace_id, e.conversation_id, e.contact_id, e.channel_id, e.source_id, e.body, e.creation_time
  ), done AS (
    UPDATE outbox_messages o SET completed_at = now() FROM sent WHERE o.id = sent.outbox_id
  )
  ${webhookRows('moved', `'Outbound'`, `'StatusChanged'`, `'Sent'`, `'Template'`)}`;

async function sendLoop(): Promise<never> {
  for (;;) {
    const first = await queue.blpop(QUEUE_KEY, 1);
    if (!first) continue;
    const raw = [first[1], ...((await queue.lpop(QUEUE_KEY, BATCH - 1)) ?? [])];
    const jobs = raw.map((r) => JSON.parse(r) as Job);
    const answers = await Promise.all(
      jobs.map((job) =>
        postJson(
          `${GRAPH_URL}/${PHONE_NUMBER_ID}/messages`,
          JSON.stringify({
            messaging_product: 'whatsapp',
            to: job.to,
            type: 'template',
            template: {
              name: job.template.name,
              language: { code: job.template.language },
              components: [{ type: 'body', parameters: [{ type: 'text', text: job.template.text }] }],
            },
          }),
          { authorization: 'Bearer bench-token' },
        ),
      ),
    );
    const wamids = answers.map((a) => (JSON.parse(a.text) as { messages: Array<{ id: string }> }).messages[0].id);
    const { rows } = await pool.query(MARK_SENT, [jobs.map((j) => j.eventId), wamids, jobs.map((j) => j.outboxId)]);
    deliver(rows);
  }
}

// ---- Notifications from Meta -----------------------------------------------------------------------

const received: Array<{ id: string; body: string }> = [];

function validSignature(body: Buffer, header: string | undefined): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', APP_SECRET).update(body).digest('hex')}`);
  const given = Buffer.from(header ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

async function takeNotification(channelId: string, workspaceId: string, body: Buffer, signature: string | undefined): Promise<number> {
  if (channelId !== CHANNEL_ID || !validSignature(body, signature)) return 401;
  const id = randomUUID();
  const text = body.toString('utf8');
  await pool.query('INSERT INTO whatsapp_intake (id, workspace_id, channel_id, body) VALUES ($1, $2, $3, $4)', [
    id,
    workspaceId,
    channelId,
    text,
  ]);
  received.push({ id, body: text });
  return 200;
}

const FORWARD_FROM: Record<string, string[]> = {
  Sent: ['Pending'],
  Delivered: ['Pending', 'Sent'],
  Read: ['Pending', 'Sent', 'Delivered'],
  Failed: ['Pending', 'Sent'],
};
/** The statuses an event may be at for a report of this status to come late (after a later one). */
const LATE_AT: Record<string, string[]> = { Sent: ['Delivered', 'Read'], Delivered: ['Read'] };
/** Each status as a bit of `reported_statuses` (the service's own). */
const STATUS_BIT: Record<string, number> = { Sent: 1, Delivered: 2, Read: 4, Failed: 8 };
const STATUS_NAME: Record<string, string> = { sent: 'Sent', delivered: 'Delivered', read: 'Read', failed: 'Failed' };

/**
 * Moves events forward by wamid (each wamid once in a statement) and writes a webhook row for each
 * that moved, and for a status come late the first time it came.
 */
const MOVE_STATUSES = `
  WITH s AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $5::text[], $6::smallint[]) AS s(wamid, status, from_list, late_list, bit)),
  moved AS (
    UPDATE conversation_events e
       SET status = CASE WHEN e.status = ANY(string_to_array(s.from_list, ',')) THEN s.status ELSE e.status END,
           reported_statuses = e.reported_statuses | s.bit
      FROM s
     WHERE e.channel_id = $4 AND e.source_type = 2 AND e.source_id = s.wamid AND e.direction = 2
       AND (e.status = ANY(string_to_array(s.from_list, ','))
            OR (e.status = ANY(string_to_array(s.late_list, ',')) AND (e.reported_statuses & s.bit) = 0))
     RETURNING e.id, e.workspace_id, e.conversation_id, e.contact_id, e.channel_id, e.source_id, e.body, e.creation_time,
               e.status AS event_status, s.status
  ), stamp AS (
    UPDATE conversations c SET last_event_status = moved.event_status FROM moved WHERE c.id = moved.conversation_id
  )
  ${webhookRows('moved', `'Outbound'`, `'StatusChanged'`, 'moved.status', `'Template'`)}`;

/** The wamids of $2 recorded on the channel: a status whose message is not among them waits for its send to be recorded. */
const RECORDED = `SELECT source_id FROM conversation_events WHERE channel_id = $1 AND source_type = 2 AND source_id = ANY($2::text[])`;

/** Records replies from known contacts: the event, its conversation's stamp, a webhook row each. */
const RECORD_REPLIES = `
  WITH r AS (SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[]) AS r(id, wamid, phone, body)),
  recorded AS (
    INSERT INTO conversation_events (id, workspace_id, conversation_id, contact_id, channel_id, source_type, source_id, direction, creation_time, status, body, is_ai)
    SELECT r.id, c.workspace_id, c.id, c.contact_id, c.channel_id, 2, r.wamid, 1, now(), 'Received', r.body, false
      FROM r JOIN contacts k ON k.workspace_id = $5 AND k.phone_number = r.phone
             JOIN conversations c ON c.contact_id = k.id AND c.channel_id = $6 AND c.status = 1
    RETURNING id, workspace_id, conversation_id, contact_id, channel_id, source_id, body, creation_time
  ), stamp AS (
    UPDATE conversations c SET last_activity_at = now(), last_event_direction = 1, last_event_status = 'Received',
           last_event_preview_body = recorded.body, last_event_occurred_at = now(), last_events_count = c.last_events_count + 1
      FROM recorded WHERE c.id = recorded.conversation_id
  )
  ${webhookRows('recorded', `'Inbound'`, `'Received'`, `'Received'`, `'Text'`)}`;

interface Notification {
  entry: Array<{
    changes: Array<{
      value: {
        statuses?: Array<{ id: string; status: string }>;
        messages?: Array<{ id: string; from: string; text?: { body: string } }>;
      };
    }>;
  }>;
}

/** A status whose message was not recorded yet, tried again at `due`; its notification is marked processed after. */
interface Unrecorded {
  wamid: string;
  status: string;
  rowId: string;
  due: number;
  tries: number;
}
const RETRY_MS = 1000;
const TRIES = 5;
const unrecorded: Unrecorded[] = [];

async function intakeLoop(workspaceId: string): Promise<never> {
  for (;;) {
    const now = Date.now();
    const retries = unrecorded.filter((u) => u.due <= now);
    if (received.length === 0 && retries.length === 0) {
      await sleep(20);
      continue;
    }
    for (const retry of retries) unrecorded.splice(unrecorded.indexOf(retry), 1);
    const round = received.splice(0, BATCH);
    const statuses: Array<{ wamid: string; status: string; rowId: string; tries: number }> = retries.map((r) => ({ ...r }));
    const replies: Array<{ wamid: string; phone: string; body: string }> = [];
    for (const { id, body } of round)
      for (const entry of (JSON.parse(body) as Notification).entry)
        for (const { value } of entry.changes) {
          for (const s of value.statuses ?? [])
            if (STATUS_NAME[s.status]) statuses.push({ wamid: s.id, status: STATUS_NAME[s.status], rowId: id, tries: 0 });
          for (const m of value.messages ?? []) replies.push({ wamid: m.id, phone: `+${m.from}`, body: m.text?.body ?? '' });
        }
    const answered = new Set<string>();
    // A statement moves each event once: a later status of the same message waits for the next pass.
    for (let pass = statuses; pass.length > 0;) {
      const seen = new Set<string>();
      const now: typeof statuses = [];
      const later: typeof statuses = [];
      for (const s of pass) {
        (seen.has(s.wamid) ? later : now).push(s);
        seen.add(s.wamid);
      }
      const { rows } = await pool.query(MOVE_STATUSES, [
        now.map((s) => s.wamid),
        now.map((s) => s.status),
        now.map((s) => FORWARD_FROM[s.status].join(',')),
        CHANNEL_ID,
        now.map((s) => (LATE_AT[s.status] ?? []).join(',')),
        now.map((s) => STATUS_BIT[s.status]),
      ]);
      deliver(rows);
      for (const row of rows as Array<{ source_id: string }>) answered.add(row.source_id);
      pass = later;
    }
    const waiting = await notRecordedYet(statuses.filter((s) => !answered.has(s.wamid)));
    for (const s of waiting) unrecorded.push({ ...s, due: Date.now() + RETRY_MS, tries: s.tries + 1 });
    if (replies.length > 0) {
      const { rows } = await pool.query(RECORD_REPLIES, [
        replies.map(() => randomUUID()),
        replies.map((r) => r.wamid),
        replies.map((r) => r.phone),
        replies.map((r) => r.body),
        workspaceId,
        CHANNEL_ID,
      ]);
      deliver(rows);
    }
    const stillWaiting = new Set(unrecorded.map((u) => u.rowId));
    const done = [...new Set([...round.map((r) => r.id), ...retries.map((r) => r.rowId)])].filter((id) => !stillWaiting.has(id));
    if (done.length > 0) await pool.query('UPDATE whatsapp_intake SET processed_at = now() WHERE id = ANY($1::uuid[])', [done]);
  }
}

/** Of statuses that moved nothing, those whose message is not recorded yet (and that have tries left): one read, only when some moved nothing. */
async function notRecordedYet<T extends { wamid: string; tries: number }>(idle: T[]): Promise<T[]> {
  if (idle.length === 0) return [];
  const { rows } = await pool.query(RECORDED, [CHANNEL_ID, [...new Set(idle.map((s) => s.wamid))]]);
  const recorded = new Set((rows as Array<{ source_id: string }>).map((r) => r.source_id));
  return idle.filter((s) => !recorded.has(s.wamid) && s.tries + 1 < TRIES);
}

// ---- Webhooks to the integrator -----------------------------------------------------------------

/** The webhook rows of the events in CTE `events`, returning what to POST. */
function webhookRows(events: string, direction: string, action: string, status: string, messageType: string): string {
  return `INSERT INTO webhook_deliveries (id, workspace_id, kind, target_url, payload, status)
    SELECT gen_random_uuid(), ${events}.workspace_id, 'whatsapp.message', '${WEBHOOK_URL}',
           jsonb_build_object('workspaceId', ${events}.workspace_id, 'channelId', ${events}.channel_id,
             'conversationId', ${events}.conversation_id, 'contactId', ${events}.contact_id, 'eventId', ${events}.id,
             'messageId', ${events}.source_id, 'action', ${action}, 'direction', ${direction}, 'source', 'Api',
             'messageType', ${messageType}, 'body', ${events}.body, 'status', ${status},
             'creationTime', ${events}.creation_time, 'isBillable', true),
           'Pending'
      FROM ${events}
    RETURNING id, payload::text AS body`;
}

const delivered: string[] = [];

function deliver(rows: Array<{ id: string; body: string }>): void {
  for (const row of rows) {
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = createHmac('sha256', WEBHOOK_SECRET).update(`${row.id}.${timestamp}.${row.body}`).digest('base64');
    postJson(WEBHOOK_URL, row.body, { 'webhook-id': row.id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${signature}` }).then(
      (res) => res.status < 300 && delivered.push(row.id),
      () => undefined,
    );
  }
}

async function markDeliveredLoop(): Promise<never> {
  for (;;) {
    await sleep(20);
    if (delivered.length === 0) continue;
    const ids = delivered.splice(0, delivered.length);
    await pool.query(
      `UPDATE webhook_deliveries SET status = 'Delivered', attempts = 1, last_status_code = 200, last_attempt_at = now() WHERE id = ANY($1::uuid[])`,
      [ids],
    );
  }
}

// ---- HTTP -----------------------------------------------------------------------------------------

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

const server = http.createServer((req, res) => {
  const answer = (status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  void (async () => {
    try {
      const url = req.url ?? '/';
      if (req.method === 'GET' && url === '/health/live') return answer(200, { status: 'ok' });
      const body = await readBody(req);
      if (req.method === 'POST' && url === '/v1/whatsapp/service-account/sendTemplate') {
        const [status, out] = await sendTemplate(req.headers.authorization, JSON.parse(body.toString('utf8')) as SendBody);
        return answer(status, out);
      }
      const edge = /^\/v1\/whatsapp\/webhooks\/([^/?]+)$/.exec(url);
      if (req.method === 'POST' && edge) {
        const status = await takeNotification(
          edge[1],
          process.env.WORKSPACE_ID as string,
          body,
          req.headers['x-hub-signature-256'] as string,
        );
        return answer(status, {});
      }
      answer(404, {});
    } catch (err) {
      console.error(err);
      answer(500, {});
    }
  })();
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT), '127.0.0.1');
void sendLoop();
void intakeLoop(process.env.WORKSPACE_ID as string);
void markDeliveredLoop();
