import type { AppConfig } from '../config/app-config.js';

/** Named limits of API.md §1; all but `token` are counted per workspace. */
export enum RateLimitPolicy {
  Requests = 'requests',
  WhatsAppSends = 'whatsapp-sends',
  IvrCalls = 'ivr-calls',
  TokenRequests = 'token-requests',
}

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
  };
}

export const WORKSPACE_POLICIES = [RateLimitPolicy.Requests, RateLimitPolicy.WhatsAppSends, RateLimitPolicy.IvrCalls];
