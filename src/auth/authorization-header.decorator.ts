import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

/**
 * The request's `Authorization` header, for Service Login's HTTP Basic client authentication. A custom
 * decorator rather than `@Headers('authorization')`, which would put a required header parameter in
 * the OpenAPI document (Basic is optional, and described on the operation).
 */
export const AuthorizationHeader = createParamDecorator(
  (_data: unknown, context: ExecutionContext): string | undefined =>
    context.switchToHttp().getRequest<FastifyRequest>().headers.authorization,
);
