import { Injectable } from '@nestjs/common';
import { EndpointThrottle } from './endpoint-throttle.js';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository.js';

/** Attempts to one endpoint running at once in this process: a receiver that hangs holds no more workers than this. */
export const ENDPOINT_IN_FLIGHT_CAP = 12;
/** An attempt whose throttle slot is this near waits for it in the worker; a later one is rescheduled. */
const WAIT_IN_WORKER_MS = 1_000;
/** A rescheduled attempt comes back this much before its slot and waits for it here (queue delays vary). */
export const SLOT_LEAD_MS = 300;
/** Later than this after its slot, an attempt takes a new one: starting now could crowd the next second's. */
const SLOT_LATE_MS = 20;
const SETTINGS_CACHE_MS = 2_000;
/** The attempt time assumed for an endpoint until one was measured. */
const DEFAULT_ATTEMPT_MS = 100;

/** Admitted (release once the attempt ended), or to come back in `retryInMs`, holding the throttle slot `slotAt` (ms epoch) when given. */
export type Admission = { admitted: true; release: () => void } | { admitted: false; retryInMs: number; slotAt?: number };

interface EndpointLoad {
  inFlight: number;
  /** Smoothed duration of its recent attempts, ms. */
  attemptMs: number;
  /** When the next attempt turned away for the cap is to come back (this process's clock). */
  nextOverflowAt: number;
}

/**
 * Admits an attempt to an endpoint, or says when to try again: its throttle (API.md §11.1, shared
 * across workers through {@link EndpointThrottle}), then a cap on this process's attempts to it at
 * once, so that a receiver that never answers (every attempt waiting out the 10 s deadline)
 * cannot take every worker from the live ones. Turned-away attempts are spread over the time the
 * endpoint is measured to need, so each comes back about once rather than polling.
 */
@Injectable()
export class EndpointGate {
  private readonly loads = new Map<string, EndpointLoad>();
  private readonly settings = new Map<string, { rateLimitPerSecond: number | null; until: number }>();

  constructor(
    private readonly throttle: EndpointThrottle,
    private readonly endpoints: WebhookEndpointsRepository,
  ) {}

  async admit(workspaceId: string, endpointId: string, slotAt?: number): Promise<Admission> {
    const load = this.load(endpointId);
    if (load.inFlight >= ENDPOINT_IN_FLIGHT_CAP) return { admitted: false, retryInMs: this.overflowDelay(load), slotAt };
    let wait = slotAt === undefined ? -Infinity : slotAt - Date.now();
    if (wait < -SLOT_LATE_MS) {
      const rate = await this.rateLimit(workspaceId, endpointId);
      wait = rate === null ? 0 : await this.throttle.reserve(endpointId, rate);
      if (wait > WAIT_IN_WORKER_MS) return { admitted: false, retryInMs: wait - SLOT_LEAD_MS, slotAt: Date.now() + wait };
    }
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    load.inFlight++;
    const started = Date.now();
    return {
      admitted: true,
      release: () => {
        load.inFlight--;
        load.attemptMs = load.attemptMs * 0.8 + (Date.now() - started) * 0.2;
        if (load.inFlight === 0 && load.attemptMs < DEFAULT_ATTEMPT_MS && this.loads.size > 10_000) this.loads.delete(endpointId);
      },
    };
  }

  private load(endpointId: string): EndpointLoad {
    let load = this.loads.get(endpointId);
    if (!load) this.loads.set(endpointId, (load = { inFlight: 0, attemptMs: DEFAULT_ATTEMPT_MS, nextOverflowAt: 0 }));
    return load;
  }

  /** Spaces the comebacks of turned-away attempts by the time one slot of the cap takes to free. */
  private overflowDelay(load: EndpointLoad): number {
    const now = Date.now();
    load.nextOverflowAt = Math.max(load.nextOverflowAt, now) + load.attemptMs / ENDPOINT_IN_FLIGHT_CAP;
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
