import type { AppConfig } from '../config/app-config.js';

/** Named limits of API.md §1, and the limit on requests without a valid token. */
export enum RateLimitPolicy {
  Requests = 'requests',
  WhatsAppSends = 'whatsapp-sends',
  IvrCalls = 'ivr-calls',
  TokenRequests = 'token-requests',
  UnauthenticatedRequests = 'unauthenticated-requests',
}

/** What a policy counts per: the token's workspace, the client id of a token request, or the client address. */
export type PolicyScope = 'workspace' | 'client-id' | 'client-address';

export const POLICY_SCOPE: Record<RateLimitPolicy, PolicyScope> = {
  [RateLimitPolicy.Requests]: 'workspace',
  [RateLimitPolicy.WhatsAppSends]: 'workspace',
  [RateLimitPolicy.IvrCalls]: 'workspace',
  [RateLimitPolicy.TokenRequests]: 'client-id',
  [RateLimitPolicy.UnauthenticatedRequests]: 'client-address',
};

export interface PolicyLimits {
  points: number;
  windowSeconds: number;
}

export function policyLimits(config: AppConfig): Record<RateLimitPolicy, PolicyLimits> {
  const limits = config.rateLimits;
  return {
    [RateLimitPolicy.Requests]: { points: limits.requestsPerMinute, windowSeconds: 60 },
    [RateLimitPolicy.WhatsAppSends]: { points: limits.whatsappSendsPerSecond, windowSeconds: 1 },
    [RateLimitPolicy.IvrCalls]: { points: limits.ivrCallsPerSecond, windowSeconds: 1 },
    [RateLimitPolicy.TokenRequests]: { points: limits.tokenRequestsPerMinute, windowSeconds: 60 },
    [RateLimitPolicy.UnauthenticatedRequests]: { points: limits.unauthenticatedRequestsPerMinute, windowSeconds: 60 },
  };
}

export const WORKSPACE_POLICIES = [RateLimitPolicy.Requests, RateLimitPolicy.WhatsAppSends, RateLimitPolicy.IvrCalls];
