import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest, onResponseHookHandler } from 'fastify';
import { appendOnResponse } from '../common/http/route-hooks.js';
import { HttpMetrics } from './metrics.module.js';

/**
 * Observes every response's latency, labelled by route template (`/v1/contacts/:id`), not raw URL.
 * Each route gets its own hook, its template known when it is added: reading it per request
 * (`request.routeOptions`) builds a dozen-field object every time. Requests that match no route
 * are labelled `unmatched` by a hook of the not-found handler. Call before any route is added.
 */
export function registerHttpMetrics(app: NestFastifyApplication): void {
  const metrics = app.get(HttpMetrics);
  const observerOf =
    (route: string): onResponseHookHandler =>
    (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      metrics.requestDuration.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
      done();
    };
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onRoute', (route) => appendOnResponse(route, observerOf(route.url)));
  const unmatched = observerOf('unmatched');
  fastify.addHook('onResponse', (request, reply, done) => (request.is404 ? unmatched.call(fastify, request, reply, done) : done()));
}
