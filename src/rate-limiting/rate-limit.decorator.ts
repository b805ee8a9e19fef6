import { SetMetadata } from '@nestjs/common';
import type { RateLimitPolicy } from './rate-limit-policy.js';

export const RATE_LIMIT_POLICY = Symbol('rate-limit-policy');

/**
 * Counts the route against a policy of its own: a workspace policy on top of the general request
 * limit (e.g. WhatsApp sends), or, on a public route, the per-address limit of requests without a token.
 */
export const RateLimit = (policy: RateLimitPolicy) => SetMetadata(RATE_LIMIT_POLICY, policy);
