import { Injectable } from '@nestjs/common';
import { ONE_SECOND_WINDOW_MS, RateLimiter } from '../common/rate/rate-limiter.js';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository.js';

/**
 * Attempts to one endpoint this process runs or holds waiting for its throttle at once: a receiver
 * that hangs, or a slow throttle, holds no more of the worker's job slots than this.
 */
export const ENDPOINT_IN_FLIGHT_CAP = 12;
/** The longest an admitted attempt can wait for its throttle: the cap's places ahead of it at the lowest limit (1/s). */
export const MAX_THROTTLE_WAIT_MS = ENDPOINT_IN_FLIGHT_CAP * 1000;
const SETTINGS_CACHE_MS = 2_000;
/** The attempt time assumed for an endpoint until one was measured. */
const DEFAULT_ATTEMPT_MS = 100;

/**
 * Admitted (call `start` just before sending: it waits for the throttle and says whether it had to;
 * `release` once the attempt ended), or to come back in `retryInMs`.
 */
export type Admission = { admitted: true; start: () => Promise<boolean>; release: () => void } | { admitted: false; retryInMs: number };

interface EndpointLoad {
  /** When each attempt running or waiting for the throttle in this process was admitted. */
  inFlightSince: number[];
  /** Smoothed duration of its recent attempts, ms. */
  attemptMs: number;
  /** When the next attempt turned away is to come back (this process's clock). */
  nextOverflowAt: number;
}

/**
 * Admits an attempt to an endpoint, or says when to try again: a cap on this process's attempts to
 * it at once (so that a receiver that never answers, every attempt waiting out the 10 s deadline,
 * cannot take every worker from the live ones), then its throttle (API.md §11.1, shared across
 * workers through {@link RateLimiter}), which an admitted attempt waits for. Turned-away
 * attempts are spread over the time the endpoint is measured to need, or its throttle allows, so
 * each comes back about once rather than polling.
 */
@Injectable()
export class EndpointGate {
  private readonly loads = new Map<string, EndpointLoad>();
  private readonly settings = new Map<string, { rateLimitPerSecond: number | null; until: number }>();

  constructor(
    private readonly limiter: RateLimiter,
    private readonly endpoints: WebhookEndpointsRepository,
  ) {}

  async admit(workspaceId: string, endpointId: string): Promise<Admission> {
    const load = this.load(endpointId);
    const rate = await this.rateLimit(workspaceId, endpointId);
    if (load.inFlightSince.length >= ENDPOINT_IN_FLIGHT_CAP) return { admitted: false, retryInMs: this.overflowDelay(load, rate) };
    const admittedAt = Date.now();
    load.inFlightSince.push(admittedAt);
    let started: number | undefined;
    // The throttle counts a start when it is asked, so it is asked just before the request leaves:
    // anything between the two (the claim) would shift starts and crowd a receiver's second.
    const start = async () => {
      const waited = rate !== null && (await this.waitForThrottle(endpointId, rate));
      started = Date.now();
      return waited;
    };
    const release = () => {
      load.inFlightSince.splice(load.inFlightSince.indexOf(admittedAt), 1);
      if (started !== undefined) load.attemptMs = load.attemptMs * 0.8 + (Date.now() - started) * 0.2;
      if (load.inFlightSince.length === 0 && load.attemptMs < DEFAULT_ATTEMPT_MS && this.loads.size > 10_000) this.loads.delete(endpointId);
    };
    return { admitted: true, start, release };
  }

  /** Waits until the endpoint's throttle lets an attempt start, and records the start. */
  private async waitForThrottle(endpointId: string, rate: number): Promise<boolean> {
    let waited = false;
    const rule = { key: `webhook-throttle:${endpointId}`, limit: rate, windowMs: ONE_SECOND_WINDOW_MS };
    for (let wait = await this.limiter.tryStart([rule]); wait > 0; wait = await this.limiter.tryStart([rule])) {
      waited = true;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
    return waited;
  }

  private load(endpointId: string): EndpointLoad {
    let load = this.loads.get(endpointId);
    if (!load) this.loads.set(endpointId, (load = { inFlightSince: [], attemptMs: DEFAULT_ATTEMPT_MS, nextOverflowAt: 0 }));
    return load;
  }

  /**
   * Spaces the comebacks of turned-away attempts by the time one place of the cap takes to free:
   * an attempt's measured time (or, when longer, how long the oldest running one has run: a
   * receiver that stopped answering is known to be slow before its first attempt ends) over the
   * cap, or the throttle's interval when that is longer.
   */
  private overflowDelay(load: EndpointLoad, rate: number | null): number {
    const now = Date.now();
    const attemptMs = Math.max(load.attemptMs, now - Math.min(...load.inFlightSince));
    const spacing = Math.max(attemptMs / ENDPOINT_IN_FLIGHT_CAP, rate === null ? 0 : 1000 / rate);
    load.nextOverflowAt = Math.max(load.nextOverflowAt, now) + spacing;
    return Math.max(20, Math.round(load.nextOverflowAt - now));
  }

  private async rateLimit(workspaceId: string, endpointId: string): Promise<number | null> {
    const hit = this.settings.get(endpointId);
    if (hit && hit.until > Date.now()) return hit.rateLimitPerSecond;
    const rateLimitPerSecond = (await this.endpoints.findRateLimit(workspaceId, endpointId)) ?? null;
    if (this.settings.size > 10_000) this.settings.clear();
    this.settings.set(endpointId, { rateLimitPerSecond, until: Date.now() + SETTINGS_CACHE_MS });
    return rateLimitPerSecond;
  }
}
