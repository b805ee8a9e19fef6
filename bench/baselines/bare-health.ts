// Baseline (a): bare Fastify answering what GET /health/live answers.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/health/live', async () => ({ status: 'ok' }));
void app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
