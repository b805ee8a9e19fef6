// Baseline (b): bare Fastify + pg + jsonwebtoken doing what GET /v1/workspaces/users does:
// verify the bearer JWT, then the same query, mapped to the same JSON.
import Fastify from 'fastify';
import { verifyBearer } from './bearer.js';
import { Pool } from 'pg';

const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
const app = Fastify({ logger: false });

app.get('/health/live', async () => ({ status: 'ok' }));
app.get('/v1/workspaces/users', async (request, reply) => {
  const claims = verifyBearer(request.headers.authorization);
  if (!claims) return reply.code(401).send({ statusCode: 401 });
  const { rows } = await pool.query(
    `SELECT id, workspace_id, user_id, email, name, logo_url, role, is_ai_agent, phone_number, creation_time
       FROM workspace_users WHERE workspace_id = $1 ORDER BY creation_time ASC, id ASC`,
    [claims.workspace_id],
  );
  return rows.map((row) => ({
    id: row.id,
    workspaceId: row.workspace_id,
    userId: row.user_id,
    email: row.email,
    name: row.name,
    logoUrl: row.logo_url,
    role: row.role,
    creationTime: row.creation_time.toISOString(),
    isAiAgent: row.is_ai_agent,
    phoneNumber: row.phone_number,
  }));
});
void app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
