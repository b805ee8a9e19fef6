import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply } from 'fastify';
import type { Principal } from '../auth/principal.js';
import { RateLimitPolicy } from './rate-limit-policy.js';
import { RATE_LIMIT_POLICY } from './rate-limit.decorator.js';
import { rateLimitHeaders, RateLimitService, type RateLimitState } from './rate-limit.service.js';

/**
 * Global guard after authentication: counts every workspace request, plus the route's own
 * policy if it has one, and reports the tighter of the two in the `X-RateLimit-*` headers.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    private readonly limits: RateLimitService,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const principal = http.getRequest<{ user?: Principal }>().user;
    if (!principal) return true;
    const reply = http.getResponse<FastifyReply>();
    const policies = [RateLimitPolicy.Requests];
    const routePolicy = this.reflector.get<RateLimitPolicy | undefined>(RATE_LIMIT_POLICY, context.getHandler());
    if (routePolicy) policies.push(routePolicy);
    // In order: a request refused by the general limit spends no point of the route's own.
    const states: RateLimitState[] = [];
    for (const policy of policies) {
      const state = await this.limits.consume(policy, principal.workspaceId);
      if (state) states.push(state);
    }
    const tightest = states.sort((a, b) => a.remaining / a.limit - b.remaining / b.limit)[0];
    if (tightest) reply.headers(rateLimitHeaders(tightest));
    return true;
  }
}
