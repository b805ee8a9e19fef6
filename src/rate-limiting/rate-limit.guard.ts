import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../auth/principal.js';
import { clientAddressKey } from './client-address.js';
import { POLICY_SCOPE, RateLimitPolicy } from './rate-limit-policy.js';
import { RATE_LIMIT_POLICY } from './rate-limit.decorator.js';
import { rateLimitHeaders, RateLimitService, type RateLimitState } from './rate-limit.service.js';

/**
 * Global guard after authentication: counts every workspace request, plus the route's own
 * policy if it has one (per workspace, or per client address on a public route such as the token
 * endpoint), and reports the tighter of the two in the `X-RateLimit-*` headers.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    private readonly limits: RateLimitService,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest & { user?: Principal }>();
    const principal = request.user;
    const counted: Array<{ policy: RateLimitPolicy; key: string }> = [];
    if (principal) counted.push({ policy: RateLimitPolicy.Requests, key: principal.workspaceId });
    const routePolicy = this.reflector.get<RateLimitPolicy | undefined>(RATE_LIMIT_POLICY, context.getHandler());
    const routeKey = routePolicy && keyOf(routePolicy, request, principal);
    if (routePolicy && routeKey) counted.push({ policy: routePolicy, key: routeKey });
    // In order: a request refused by the general limit spends no point of the route's own.
    const states: RateLimitState[] = [];
    for (const { policy, key } of counted) {
      const state = await this.limits.consume(policy, key);
      if (state) states.push(state);
    }
    const tightest = states.sort((a, b) => a.remaining / a.limit - b.remaining / b.limit)[0];
    if (tightest) http.getResponse<FastifyReply>().headers(rateLimitHeaders(tightest));
    return true;
  }
}

/** What the route's policy counts this request under; client ids are counted by the token service, which reads them. */
function keyOf(policy: RateLimitPolicy, request: FastifyRequest, principal: Principal | undefined): string | undefined {
  switch (POLICY_SCOPE[policy]) {
    case 'workspace':
      return principal?.workspaceId;
    case 'client-address':
      return clientAddressKey(request.ip);
    case 'client-id':
      return undefined;
  }
}
