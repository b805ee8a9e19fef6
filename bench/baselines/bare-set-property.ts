// Baseline for Set Property Value on Contact: bare Fastify + pg + jsonwebtoken running the same
// statements in one transaction (definition, locked contact, current value, upsert, contact stamp,
// history), then the same reads for the response (contact, values, notes, definitions).
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import { verifyBearer } from './bearer.js';
import { Pool } from 'pg';

const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
const app = Fastify({ logger: false });

app.get('/health/live', async () => ({ status: 'ok' }));
app.put<{ Params: { contactId: string; propertyId: string }; Body: { value: number } }>(
  '/v1/contacts/:contactId/properties/:propertyId',
  async (request, reply) => {
    const claims = verifyBearer(request.headers.authorization);
    if (!claims) return reply.code(401).send({ statusCode: 401 });
    const { contactId, propertyId } = request.params;
    const ws = claims.workspace_id;
    const value = String(request.body.value);
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const definition = (
        await client.query('SELECT * FROM contact_property_definitions WHERE id = $1 AND workspace_id = $2', [propertyId, ws])
      ).rows[0];
      const contact = (await client.query('SELECT * FROM contacts WHERE id = $1 AND workspace_id = $2 FOR UPDATE', [contactId, ws]))
        .rows[0];
      if (!definition || !contact) {
        await client.query('ROLLBACK');
        return reply.code(404).send({ statusCode: 404 });
      }
      const existing = (
        await client.query('SELECT * FROM contact_property_values WHERE contact_id = $1 AND property_definition_id = $2', [
          contactId,
          propertyId,
        ])
      ).rows[0];
      await client.query(
        `INSERT INTO contact_property_values (id, workspace_id, contact_id, property_definition_id, number_value) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (contact_id, property_definition_id) DO UPDATE SET number_value = EXCLUDED.number_value`,
        [randomUUID(), ws, contactId, propertyId, value],
      );
      await client.query('UPDATE contacts SET last_modification_time = now(), last_modifier_id = $2 WHERE id = $1', [
        contactId,
        claims.sub,
      ]);
      await client.query(
        `INSERT INTO contact_history (id, workspace_id, contact_id, property_name, property_definition_id, old_value, new_value, creation_time, creator_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, now(), $8)`,
        [randomUUID(), ws, contactId, definition.name, propertyId, existing?.number_value ?? null, value, claims.sub],
      );
      await client.query('COMMIT');
    } catch (err) {
      await client.query('ROLLBACK');
      throw err;
    } finally {
      client.release();
    }
    const [contact, values, notes, definitions] = await Promise.all([
      pool.query('SELECT * FROM contacts WHERE id = $1 AND workspace_id = $2', [contactId, ws]),
      pool.query('SELECT * FROM contact_property_values WHERE workspace_id = $1 AND contact_id = ANY($2)', [ws, [contactId]]),
      pool.query('SELECT * FROM contact_notes WHERE workspace_id = $1 AND contact_id = ANY($2) ORDER BY creation_time, id', [
        ws,
        [contactId],
      ]),
      pool.query('SELECT * FROM contact_property_definitions WHERE workspace_id = $1', [ws]),
    ]);
    const byId = new Map(definitions.rows.map((d) => [d.id, d]));
    const c = contact.rows[0];
    return {
      id: c.id,
      workspaceId: c.workspace_id,
      name: c.name,
      phoneNumber: c.phone_number,
      contactType: c.contact_type,
      email: c.email,
      company: c.company,
      position: c.position,
      customFields: c.custom_fields,
      notes: notes.rows.map((n) => ({ id: n.id, text: n.text })),
      customProperties: values.rows.map((v) => ({
        propertyDefinitionId: v.property_definition_id,
        propertyName: byId.get(v.property_definition_id)?.name,
        propertyType: byId.get(v.property_definition_id)?.type,
        textValue: v.text_value,
        numberValue: v.number_value === null ? null : Number(v.number_value),
        dateValue: v.date_value?.toISOString().slice(0, -1) ?? null,
        selectValue: v.select_value,
      })),
      lastModificationTime: c.last_modification_time.toISOString().slice(0, -1),
      lastModifierId: c.last_modifier_id,
      creationTime: c.creation_time.toISOString().slice(0, -1),
      creatorId: c.creator_id,
    };
  },
);
void app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
