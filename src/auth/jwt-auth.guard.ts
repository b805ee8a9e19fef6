import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { AppConfig } from '../config/app-config.js';
import { BearerTokenExpired, BearerTokenRequired, InsufficientScope } from './auth.errors.js';
import { IS_PUBLIC } from './public.decorator.js';
import type { Principal } from './principal.js';

/** Global guard: every route needs a valid bearer token with the API scope unless marked `@Public()`. */
@Injectable()
export class JwtAuthGuard extends AuthGuard('jwt') {
  constructor(
    private readonly reflector: Reflector,
    private readonly config: AppConfig,
  ) {
    super();
  }

  override canActivate(context: ExecutionContext) {
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]);
    return isPublic ? true : super.canActivate(context);
  }

  override handleRequest<T = Principal>(err: unknown, user: T | false, info: unknown): T {
    if (err) throw err;
    if (!user) throw (info as { name?: string } | undefined)?.name === 'TokenExpiredError' ? BearerTokenExpired() : BearerTokenRequired();
    if (!(user as unknown as Principal).scopes.includes(this.config.auth.apiScope)) throw InsufficientScope(this.config.auth.apiScope);
    return user;
  }
}
