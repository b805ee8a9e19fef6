import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { HttpMetrics } from './metrics.module.js';

/** Observes every response's latency, labelled by route template (`/v1/contacts/:id`), not raw URL. */
export function registerHttpMetrics(app: NestFastifyApplication): void {
  const metrics = app.get(HttpMetrics);
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onResponse', (request, reply, done) => {
      const route = request.routeOptions.url ?? 'unmatched';
      metrics.requestDuration.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
      done();
    });
}
