import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest, onResponseHookHandler } from 'fastify';
import type { Level, Logger } from 'pino';
import type { Principal } from '../auth/principal.js';
import { appendOnResponse } from '../common/http/route-hooks.js';

export const REQUEST_LINE_MESSAGE = 'request completed';

/** The fields of a request line, beside `msg` (pino-pretty folds them into one readable message). */
export const REQUEST_LINE_FIELDS = ['reqId', 'method', 'route', 'url', 'statusCode', 'responseTime', 'workspaceId'] as const;

export interface RequestLine {
  /** The id echoed in `X-Request-Id`. */
  reqId: string;
  method: string;
  /** The route pattern (`/v1/contacts/:id`), `unmatched` for a 404 of no route. */
  route: string;
  /** Path and query, secrets in the query censored; absent where the path itself is a credential. */
  url?: string;
  statusCode: number;
  /** Milliseconds from the request's arrival to the end of the response, to 0.1 ms. */
  responseTime: number;
  /** The token's workspace, once the request is authenticated. */
  workspaceId?: string;
}

/** Polled by probes and scrapers: their lines are at debug, so that they do not drown the rest. */
const QUIET_ROUTE = /^\/(health\/|metrics$)/;
/** Public media URLs: the key in the path is what grants access to the file. */
const CREDENTIAL_IN_PATH = new Set(['/media/:key/:fileName']);
/** Query parameters such as `hub.verify_token` (Meta's subscription check). */
const SECRET_QUERY_VALUE = /([?&][^=&]*(?:token|secret|signature|key|password)[^=&]*=)[^&]*/gi;

/**
 * Writes one line per HTTP request when its response has been sent. Like the latency metrics, each
 * route gets its own hook, its pattern and level settled when the route is added, so a request pays
 * for one small object and one pino call. Requests that match no route are written by a hook of the
 * not-found handler. Call before any route is added.
 */
export function registerRequestLog(app: NestFastifyApplication, rootLogger: Logger): void {
  // A line holds no header and its query's secrets are censored (loggableUrl), so it skips the root's
  // redaction, two thirds of its cost (about 11 of 17 µs a line, measured).
  const logger = rootLogger.child({}, { redact: [] });
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onRoute', (route) => {
    appendOnResponse(
      route,
      writerOf(logger, route.url, QUIET_ROUTE.test(route.url) ? 'debug' : 'info', !CREDENTIAL_IN_PATH.has(route.url)),
    );
  });
  const unmatched = writerOf(logger, 'unmatched', 'info', true);
  fastify.addHook('onResponse', (request, reply, done) => (request.is404 ? unmatched.call(fastify, request, reply, done) : done()));
}

function writerOf(logger: Logger, route: string, level: Level, showUrl: boolean): onResponseHookHandler {
  return (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    if (logger.isLevelEnabled(level)) logger[level](requestLine(request, reply, route, showUrl), REQUEST_LINE_MESSAGE);
    done();
  };
}

function requestLine(request: FastifyRequest & { user?: Principal }, reply: FastifyReply, route: string, showUrl: boolean): RequestLine {
  return {
    reqId: request.id,
    method: request.method,
    route,
    url: showUrl ? loggableUrl(request.url) : undefined,
    statusCode: reply.statusCode,
    responseTime: Math.round(reply.elapsedTime * 10) / 10,
    workspaceId: request.user?.workspaceId,
  };
}

export function loggableUrl(url: string): string {
  return url.includes('?') ? url.replace(SECRET_QUERY_VALUE, '$1[redacted]') : url;
}

/** A request line as pino-pretty shows it: `GET /v1/contacts/01… → 200 in 3.1 ms (/v1/contacts/:id) workspace … request …`. */
export function prettyRequestLine(log: Record<string, unknown>): string | undefined {
  if (log.msg !== REQUEST_LINE_MESSAGE) return undefined;
  const line = log as unknown as RequestLine;
  const workspace = line.workspaceId ? ` workspace ${line.workspaceId}` : '';
  return `${line.method} ${line.url ?? line.route} → ${line.statusCode} in ${line.responseTime} ms (${line.route})${workspace} request ${line.reqId}`;
}
