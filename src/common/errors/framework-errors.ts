import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { NotFoundError } from './domain-error.js';
import { ErrorEnvelopeFilter } from './error-envelope.filter.js';

const envelope = new ErrorEnvelopeFilter();

/**
 * Fastify's `frameworkErrors`: a path that cannot be decoded (`/v1/contacts/%zz`, a cut UTF-8
 * sequence) or whose id is longer than any route takes is answered before routing. It cannot
 * name anything, so it is a 404 like a malformed id (API.md §1), in the error envelope; anything
 * else Fastify reports here goes through the same filter as every other error.
 */
export function answerFrameworkError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const unroutable = error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH';
  const { body, headers } = envelope.toResponse(unroutable ? new NotFoundError('Request:NotFound', 'Not found.') : error);
  void reply.status(body.statusCode).headers(headers).send(body);
}
