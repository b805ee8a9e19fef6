import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';

const HEADER = 'x-request-id';

/** The caller's `X-Request-Id` when it is a sane token, else a new UUID. */
export function requestIdOf(req: IncomingMessage): string {
  const sent = req.headers[HEADER];
  return typeof sent === 'string' && /^[\w.:-]{1,128}$/.test(sent) ? sent : randomUUID();
}

/** Fastify's `genReqId`: the request's id, also kept on the Node request for the logger. */
export function assignRequestId(req: IncomingMessage): string {
  req.id = requestIdOf(req);
  return req.id;
}

/** Echoes the request id on every response (errors and 404s included) and hands it to the logger. */
export function echoRequestId(app: NestFastifyApplication): void {
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onRequest', (request, reply, done) => {
      void reply.header('X-Request-Id', request.id);
      done();
    });
}
