import { type CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { DomainError, ErrorKind } from '../common/errors/domain-error.js';
import { UnauthenticatedRequestLimit } from '../rate-limiting/unauthenticated-request-limit.js';
import { AccessTokenVerifier } from './access-token-verifier.js';
import { IS_PUBLIC } from './public.decorator.js';
import type { Principal } from './principal.js';

/**
 * Global guard: every route needs a valid bearer token with the API scope unless marked
 * `@Public()`. The caller is put on the request as `user` for `@CurrentWorkspace()` and the rate limit.
 */
@Injectable()
export class JwtAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: AccessTokenVerifier,
    private readonly unauthenticated: UnauthenticatedRequestLimit,
  ) {}

  /** A request refused here is counted against its client address (a 429 once over that limit). */
  async canActivate(context: ExecutionContext): Promise<boolean> {
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]);
    if (isPublic) return true;
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest & { user?: Principal }>();
    try {
      request.user = await this.tokens.principalOf(request.headers.authorization);
      return true;
    } catch (err) {
      if (err instanceof DomainError && err.kind === ErrorKind.Unauthenticated) {
        await this.unauthenticated.count(request, http.getResponse());
      }
      throw err;
    }
  }
}
