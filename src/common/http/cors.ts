import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyRequest } from 'fastify';
import { errorEnvelope } from '../errors/error-envelope.js';

/** @fastify/cors's per-request options (Nest's `enableCors` registers @fastify/cors on Fastify). */
type CorsDelegate = Extract<
  NonNullable<NonNullable<Parameters<NestFastifyApplication['enableCors']>[0]>['delegator']>,
  (request: never, callback: never) => void
>;

/** What a browser script may send and read cross-origin (API.md §1 headers). */
const CORS_POLICY = {
  methods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'],
  allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id'],
  exposedHeaders: ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After', 'X-Request-Id'],
  maxAge: 600,
  strictPreflight: false,
};

const isPreflight = (request: FastifyRequest) =>
  request.method === 'OPTIONS' && request.headers.origin !== undefined && request.headers['access-control-request-method'] !== undefined;

/**
 * Cross-origin access for browsers (CORS_ORIGINS), through @fastify/cors. A preflight from an
 * allowed origin is a 204 with the allowed methods and headers; from any other origin it is a 403
 * envelope. Other requests from an origin not allowed are served as they would be without CORS
 * (server-to-server clients are unaffected), without the headers that would let a browser read them.
 */
export function enableCors(app: NestFastifyApplication, origins: '*' | string[]): void {
  const allows = (origin: string | undefined) => origins === '*' || (origin !== undefined && origins.includes(origin));
  const delegate: CorsDelegate = (request, callback) => {
    const origin = request.headers.origin;
    callback(null, allows(origin) ? { ...CORS_POLICY, origin: origins === '*' ? '*' : origin } : { origin: false });
  };
  app.enableCors({ delegator: delegate });
  // Runs after the CORS hook, which has answered the preflights it allows.
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onRequest', (request, reply, done) => {
      if (!isPreflight(request) || allows(request.headers.origin)) return done();
      const message = `Cross-origin requests from '${request.headers.origin}' are not allowed.`;
      void reply.code(403).send(errorEnvelope(403, 'Cors:OriginNotAllowed', message));
    });
}
