import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { AppConfig } from '../config/app-config.js';
import { BearerTokenExpired, BearerTokenRequired, InsufficientScope } from './auth.errors.js';
import { DomainError, ErrorKind } from '../common/errors/domain-error.js';
import { UnauthenticatedRequestLimit } from '../rate-limiting/unauthenticated-request-limit.js';
import { IS_PUBLIC } from './public.decorator.js';
import type { Principal } from './principal.js';

/** Global guard: every route needs a valid bearer token with the API scope unless marked `@Public()`. */
@Injectable()
export class JwtAuthGuard extends AuthGuard('jwt') {
  constructor(
    private readonly reflector: Reflector,
    private readonly config: AppConfig,
    private readonly unauthenticated: UnauthenticatedRequestLimit,
  ) {
    super();
  }

  /** A request refused here is counted against its client address (a 429 once over that limit). */
  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]);
    if (isPublic) return true;
    try {
      return (await super.canActivate(context)) as boolean;
    } catch (err) {
      if (err instanceof DomainError && err.kind === ErrorKind.Unauthenticated) {
        const http = context.switchToHttp();
        await this.unauthenticated.count(http.getRequest(), http.getResponse());
      }
      throw err;
    }
  }

  override handleRequest<T = Principal>(err: unknown, user: T | false, info: unknown): T {
    if (err) throw err;
    if (!user) throw (info as { name?: string } | undefined)?.name === 'TokenExpiredError' ? BearerTokenExpired() : BearerTokenRequired();
    if (!(user as unknown as Principal).scopes.includes(this.config.auth.apiScope)) throw InsufficientScope(this.config.auth.apiScope);
    return user;
  }
}
