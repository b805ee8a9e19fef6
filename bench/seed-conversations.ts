// Seeds one workspace with conversations (default 100,000 over the given channels, one per contact),
// 10 timeline events each (1,000,000), assignees and tags, with set-based INSERT … SELECT.
import { Client } from 'pg';

export interface SeededConversations {
  conversations: number;
  events: number;
  seconds: number;
  conversationIds: string[];
}

export async function seedConversations(
  databaseUrl: string,
  workspaceId: string,
  channelIds: string[],
  userIds: string[],
  tagIds: string[],
  count = 100_000,
): Promise<SeededConversations> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  const started = Date.now();
  try {
    await client.query('SET synchronous_commit = off');
    // Contacts to talk to: the oldest `count` of the workspace, created here when there are fewer.
    await client.query(
      `INSERT INTO contacts (id, workspace_id, name, phone_number, contact_type, creation_time, last_modification_time)
       SELECT gen_random_uuid(), $1, 'Conversation contact ' || i, '+1' || (3000000000 + i)::text, 1, now(), now()
         FROM generate_series(1, greatest(0, $2::int - (SELECT count(*) FROM contacts WHERE workspace_id = $1)::int)) AS i`,
      [workspaceId, count],
    );
    await client.query(
      `INSERT INTO conversations (id, workspace_id, channel_id, contact_id, status, assignee_user_id, last_activity_at, last_event_source_type,
                                  last_event_direction, last_event_status, last_event_preview_body, last_event_occurred_at, last_events_count, creation_time)
       SELECT gen_random_uuid(), $1, ($2::uuid[])[1 + n % array_length($2::uuid[], 1)], c.id, 1,
              CASE WHEN abs(hashtext(c.id::text)) % 10 < 8 THEN ($3::uuid[])[1 + abs(hashtext(c.id::text || 'a')) % array_length($3::uuid[], 1)] END,
              now() - make_interval(secs => n * 7), 2, 1 + n % 2, 'Delivered', 'Message ' || n, now() - make_interval(secs => n * 7), 10,
              now() - make_interval(secs => n * 7)
         FROM (SELECT id, row_number() OVER (ORDER BY creation_time) AS n FROM contacts WHERE workspace_id = $1 ORDER BY creation_time LIMIT $4) AS c`,
      [workspaceId, channelIds, userIds, count],
    );
    await client.query(
      `INSERT INTO conversation_tags (conversation_id, tag_id, workspace_id)
       SELECT id, ($2::uuid[])[1 + abs(hashtext(id::text || 't')) % array_length($2::uuid[], 1)], $1 FROM conversations WHERE workspace_id = $1`,
      [workspaceId, tagIds],
    );
    await client.query(
      `INSERT INTO conversation_events (id, workspace_id, conversation_id, contact_id, channel_id, source_type, direction, creation_time, status, body, is_ai)
       SELECT gen_random_uuid(), v.workspace_id, v.id, v.contact_id, v.channel_id, 2, 1 + k % 2, v.last_activity_at - make_interval(mins => 10 - k),
              'Delivered', 'Message ' || k, false
         FROM conversations v CROSS JOIN generate_series(1, 10) AS k WHERE v.workspace_id = $1`,
      [workspaceId],
    );
    for (const table of ['conversations', 'conversation_tags', 'conversation_events']) await client.query(`VACUUM ANALYZE ${table}`);
    const { rows } = await client.query('SELECT id FROM conversations WHERE workspace_id = $1 ORDER BY random() LIMIT 10000', [
      workspaceId,
    ]);
    const [{ events }] = (
      await client.query('SELECT count(*)::int AS events FROM conversation_events WHERE workspace_id = $1', [workspaceId])
    ).rows;
    return { conversations: count, events, seconds: (Date.now() - started) / 1000, conversationIds: rows.map((r) => r.id as string) };
  } finally {
    await client.end();
  }
}
