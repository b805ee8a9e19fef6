import { randomUUID } from 'node:crypto';
import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { isDatabaseUnreachable } from '../../database/pg-errors.js';
import { RedisUnreachable } from '../rate/rate-limiter.js';
import { DomainError, ErrorKind } from './domain-error.js';
import { errorEnvelope, ErrorEnvelopeDto } from './error-envelope.js';

const CODE_BY_STATUS: Record<number, string> = {
  400: 'Request:Invalid',
  401: 'Auth:Unauthorized',
  403: 'Auth:Forbidden',
  404: 'Request:NotFound',
  405: 'Request:MethodNotAllowed',
  409: 'Request:Conflict',
  413: 'Request:PayloadTooLarge',
  415: 'Request:UnsupportedMediaType',
  422: 'Request:Unprocessable',
  429: 'RateLimit:Exceeded',
};

/**
 * PostgreSQL restarting or out of reach: nothing was written (a transaction that lost its
 * connection is rolled back), so the same request may succeed once it is back.
 */
const DatabaseUnavailable = () =>
  new DomainError('Database:Unavailable', 'The database is unavailable; try again later.', ErrorKind.Unavailable, {
    headers: { 'retry-after': '5' },
  });

/** Redis out of reach for a check a request needed (the send governor's): nothing was written. */
const RedisUnavailable = () =>
  new DomainError('Redis:Unavailable', 'Redis is unavailable; try again later.', ErrorKind.Unavailable, {
    headers: { 'retry-after': '5' },
  });

/**
 * The one place where failures become HTTP responses: domain errors keep their code, framework
 * errors (bad JSON, unknown route, body too large) get a code from their status, a database out of
 * reach (PostgreSQL, or Redis for a request's check) is a 503, and anything else is a 500 whose `errorId` is in the log and in `error.details`.
 */
@Catch()
export class ErrorEnvelopeFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const { body, headers } = this.toResponse(exception);
    for (const [name, value] of Object.entries(headers)) reply.header(name, value);
    void reply.status(body.statusCode).header('Content-Type', 'application/json; charset=utf-8').send(body);
  }

  toResponse(exception: unknown): { body: ErrorEnvelopeDto; headers: Record<string, string> } {
    if (isDatabaseUnreachable(exception)) {
      this.logger.warn({ err: exception }, 'Database unreachable');
      exception = DatabaseUnavailable();
    } else if (exception instanceof RedisUnreachable) {
      this.logger.warn({ err: exception.cause }, 'Redis unreachable');
      exception = RedisUnavailable();
    }
    if (exception instanceof DomainError) {
      const { details = null, validationErrors = null, headers = {} } = exception.options;
      return {
        body: errorEnvelope(exception.status, exception.code, exception.message, details, validationErrors),
        headers,
      };
    }
    const status = httpStatusOf(exception);
    if (status !== undefined && status < 500) {
      const message = httpMessageOf(exception) ?? 'Request failed.';
      return { body: errorEnvelope(status, CODE_BY_STATUS[status] ?? 'Request:Failed', message), headers: {} };
    }
    const errorId = randomUUID();
    this.logger.error({ err: exception, errorId }, 'Unhandled error');
    return {
      body: errorEnvelope(500, 'Server:InternalError', 'An internal error occurred.', `errorId: ${errorId}`),
      headers: {},
    };
  }
}

/** Status of Nest's HttpException or of a Fastify error (`statusCode`), if it has one. */
function httpStatusOf(exception: unknown): number | undefined {
  if (exception instanceof HttpException) return exception.getStatus();
  const status = (exception as { statusCode?: unknown })?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 600 ? status : undefined;
}

function httpMessageOf(exception: unknown): string | undefined {
  if (exception instanceof HttpException) {
    const response = exception.getResponse();
    if (typeof response === 'string') return response;
    const message = (response as { message?: unknown }).message;
    return Array.isArray(message) ? message.join('; ') : typeof message === 'string' ? message : exception.message;
  }
  const message = (exception as { message?: unknown })?.message;
  return typeof message === 'string' ? message : undefined;
}
