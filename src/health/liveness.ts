import type { NestFastifyApplication } from '@nestjs/platform-fastify';

/**
 * `GET /health/live`: answered by Fastify itself, outside Nest's guards and interceptors, so a
 * liveness probe costs next to nothing and keeps answering while the request pipeline (or a
 * dependency it waits on) is stuck. Readiness (`/health/ready`) is the one that checks PostgreSQL and Redis.
 */
export function registerLiveness(app: NestFastifyApplication): void {
  app
    .getHttpAdapter()
    .getInstance()
    .get('/health/live', { logLevel: 'silent' }, (_request, reply) => {
      void reply.send({ status: 'ok' });
    });
}
