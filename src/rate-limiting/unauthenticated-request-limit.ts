import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { clientAddressKey } from './client-address.js';
import { RateLimitPolicy } from './rate-limit-policy.js';
import { rateLimitHeaders, RateLimitService } from './rate-limit.service.js';

/**
 * Counts a request that brought no valid credentials (no token, a bad or expired one, a wrong admin
 * key) against its client address. Over RATE_LIMIT_UNAUTHENTICATED_REQUESTS_PER_MINUTE it throws the
 * 429 (with Retry-After) in place of the 401; under it, the reply reports what remains.
 */
@Injectable()
export class UnauthenticatedRequestLimit {
  constructor(private readonly limits: RateLimitService) {}

  async count(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const state = await this.limits.consume(RateLimitPolicy.UnauthenticatedRequests, clientAddressKey(request.ip));
    if (state) reply.headers(rateLimitHeaders(state));
  }
}
