import { Injectable, Logger } from '@nestjs/common';
import { ONE_SECOND_WINDOW_MS, RateLimiter } from '../common/rate/rate-limiter.js';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository.js';

/**
 * Attempts to one endpoint this process has claimed at once (waiting for the throttle, or sending);
 * for a throttled endpoint, at most about a second's worth of its throttle.
 */
export const ENDPOINT_IN_FLIGHT_CAP = 12;
/**
 * The same for an unthrottled endpoint that answers fast: an attempt's time in flight is then mostly
 * its claim and its record (statement batches), which a busy database lengthens; a slow one gets
 * {@link ENDPOINT_IN_FLIGHT_CAP}.
 */
const FAST_IN_FLIGHT_CAP = 2 * ENDPOINT_IN_FLIGHT_CAP;
/** The longest a claimed attempt can wait for its throttle: the cap's places ahead of it at the lowest limit (1/s). */
export const MAX_THROTTLE_WAIT_MS = ENDPOINT_IN_FLIGHT_CAP * 1000;
/** The longest a job keeps its queue slot while its attempt waits in the endpoint's lane; then it leaves a check-back. */
export const HOLD_SLOT_MS = 1_000;
/** A check-back comes this long after the attempt's expected start, so that normally it finds the attempt made. */
export const CHECK_BACK_MARGIN_MS = 30_000;
/** Attempts waiting in one endpoint's lane in this process; beyond that they wait as check-back jobs only. */
const MAX_WAITING = 5_000;
/** An endpoint whose attempts take longer than this is slow: its jobs never keep their slot while they wait. */
const SLOW_ATTEMPT_MS = 1_000;
const SETTINGS_CACHE_MS = 2_000;
/** An attempt that waited longer than this for its turn checks that its delivery is still wanted before it starts. */
const WAITED_MS = 50;
/** How long before its throttle slot opens a waiting attempt asks whether it is still wanted. */
const CHECK_LEAD_MS = 100;
/** The attempt time assumed for an endpoint until one was measured. */
const DEFAULT_ATTEMPT_MS = 100;

export interface EndpointAttempt {
  workspaceId: string;
  deliveryId: string;
  attempt: number;
  endpointId: string;
}

/**
 * Waits for the endpoint's throttle (its limit as the attempt's claim read it; null: none) and
 * records the start; when it had to wait, asks `stillWanted` (the delivery may have been stopped
 * meanwhile) before taking the start. Whether to send.
 */
export type Turn = (rateLimitPerSecond: number | null, stillWanted: () => Promise<boolean>) => Promise<boolean>;

/** Makes the attempt: claims it, takes its `turn` just before sending, sends and records. */
export type RunAttempt = (attempt: EndpointAttempt, turn: Turn) => Promise<void>;

interface Waiting {
  attempt: EndpointAttempt;
  /** Set while the job that brought it keeps its slot: called when the attempt ended (with its error, if it failed). */
  onEnd?: (err?: unknown) => void;
}

interface Lane {
  waiting: Waiting[];
  /** Keys (delivery and attempt) of the attempts waiting or in flight here. */
  held: Set<string>;
  /** Attempts taken from the lane: claiming, waiting for the throttle or sending. */
  inFlight: number;
  /** When each attempt being sent left. */
  sendingSince: number[];
  /** Jobs keeping their slot while their attempt waits. */
  holders: number;
  /** Smoothed duration of its recent attempts (request to answer), ms. */
  attemptMs: number;
  /** Turns for the throttle, one after another: only the first asks the limiter. */
  turns: Promise<unknown>;
  /** The attempts it may have in flight while it answers fast (see {@link ENDPOINT_IN_FLIGHT_CAP}), from its throttle as last read. */
  inFlightLimit: number;
}

/**
 * Runs the attempts to endpoints: per endpoint, a lane in this process where attempts wait in order,
 * at most {@link ENDPOINT_IN_FLIGHT_CAP} in flight, and where each starts when the endpoint's throttle
 * lets it (API.md §11.1; shared across workers through {@link RateLimiter}), released by a timer at
 * the throttle's pace rather than queued again.
 *
 * The job that brought an attempt keeps its queue slot until the attempt ends, but no longer than
 * {@link HOLD_SLOT_MS}, and only a few jobs per endpoint do (none for a slow endpoint): a throttled or
 * dead receiver cannot take the worker's slots from the live ones. A job that lets its slot go
 * before its attempt ended leaves a check-back job (written by the caller) for when the attempt
 * should be long done; that job makes the attempt if this process died meanwhile, and is re-armed if
 * the attempt still waits here.
 */
@Injectable()
export class EndpointGate {
  private readonly logger = new Logger(EndpointGate.name);
  private readonly lanes = new Map<string, Lane>();
  private readonly settings = new Map<string, { rateLimitPerSecond: number | null; until: number }>();

  constructor(
    private readonly limiter: RateLimiter,
    private readonly endpoints: WebhookEndpointsRepository,
  ) {}

  /** Whether the attempt waits or is in flight in this process. */
  holds(attempt: EndpointAttempt): boolean {
    return this.lanes.get(attempt.endpointId)?.held.has(keyOf(attempt)) ?? false;
  }

  /**
   * Puts the attempt in its endpoint's lane. Settles once the attempt ended (undefined), or, when the
   * job is not to keep its slot any longer, with the ms after which a check-back job is to come.
   */
  async submit(attempt: EndpointAttempt, run: RunAttempt): Promise<number | undefined> {
    const rate = await this.rateLimit(attempt.workspaceId, attempt.endpointId);
    const lane = this.lane(attempt.endpointId);
    lane.inFlightLimit = rate === null ? FAST_IN_FLIGHT_CAP : Math.min(ENDPOINT_IN_FLIGHT_CAP, Math.ceil(rate));
    const key = keyOf(attempt);
    if (lane.held.has(key)) return this.checkBackDelay(lane, rate, lane.waiting.length);
    if (lane.waiting.length >= MAX_WAITING) return this.checkBackDelay(lane, rate, lane.waiting.length);
    // As many jobs keep their slot as the lane may have attempts in flight: a throttled endpoint's, about a second's worth.
    const holdable = lane.inFlightLimit;
    const hold = !this.isSlow(lane) && lane.holders < holdable;
    const entry: Waiting = { attempt };
    lane.held.add(key);
    lane.waiting.push(entry);
    if (!hold) {
      this.pump(lane, run);
      return this.checkBackDelay(lane, rate, lane.waiting.length);
    }
    lane.holders++;
    try {
      const outcome = await new Promise<'ended' | 'let go'>((resolve, reject) => {
        const timer = setTimeout(() => resolve('let go'), HOLD_SLOT_MS);
        entry.onEnd = (err) => {
          clearTimeout(timer);
          // The job fails with it, and is tried again.
          if (err) reject(err instanceof Error ? err : new Error(String(err)));
          else resolve('ended');
        };
        this.pump(lane, run);
      });
      if (outcome === 'ended' || !lane.held.has(key)) return undefined;
      return this.checkBackDelay(lane, rate, lane.waiting.indexOf(entry) + 1);
    } finally {
      entry.onEnd = undefined;
      lane.holders--;
    }
  }

  /** Starts waiting attempts while the lane has room. */
  private pump(lane: Lane, run: RunAttempt): void {
    while (lane.inFlight < this.inFlightCap(lane) && lane.waiting.length > 0) {
      const entry = lane.waiting.shift()!;
      void this.runInLane(lane, entry, run);
    }
  }

  private async runInLane(lane: Lane, entry: Waiting, run: RunAttempt): Promise<void> {
    lane.inFlight++;
    let sentAt: number | undefined;
    const { endpointId } = entry.attempt;
    const turn: Turn = async (rate, stillWanted) => {
      if (rate !== null && !(await this.takeTurn(lane, endpointId, rate, stillWanted))) return false;
      sentAt = Date.now();
      lane.sendingSince.push(sentAt);
      return true;
    };
    let failure: unknown;
    try {
      await run(entry.attempt, turn);
    } catch (err) {
      failure = err;
      // Its check-back job makes it later (or the job that brought it, still keeping its slot, fails and is tried again).
      if (!entry.onEnd) this.logger.warn({ err }, `Attempt ${entry.attempt.attempt} of webhook ${entry.attempt.deliveryId} did not run`);
    } finally {
      lane.inFlight--;
      lane.held.delete(keyOf(entry.attempt));
      if (sentAt !== undefined) {
        lane.sendingSince.splice(lane.sendingSince.indexOf(sentAt), 1);
        lane.attemptMs = lane.attemptMs * 0.8 + (Date.now() - sentAt) * 0.2;
      }
      entry.onEnd?.(failure);
      this.pump(lane, run);
      this.forgetIdle(endpointId, lane);
    }
  }

  /** Waits, behind the lane's earlier turns, until the throttle lets an attempt start; records the start. */
  private takeTurn(lane: Lane, endpointId: string, rate: number, stillWanted: () => Promise<boolean>): Promise<boolean> {
    const since = Date.now();
    const turn = lane.turns.then(() => this.waitForThrottle(endpointId, rate, stillWanted, since));
    lane.turns = turn.catch(() => undefined);
    return turn;
  }

  /**
   * Once the attempt has waited (behind earlier turns or for the throttle), `stillWanted` must have
   * answered before the start is taken. It is asked {@link CHECK_LEAD_MS} before the throttle's slot
   * opens rather than after, so that the start is taken as the slot opens: a start late by a query
   * would delay every later one (each waits for the start a second before it) and slow the rate.
   */
  private async waitForThrottle(endpointId: string, rate: number, stillWanted: () => Promise<boolean>, since: number): Promise<boolean> {
    const rule = { key: `webhook-throttle:${endpointId}`, limit: rate, windowMs: ONE_SECOND_WINDOW_MS };
    let check: Promise<boolean> | undefined;
    for (;;) {
      if (!check && Date.now() - since > WAITED_MS) check = stillWanted();
      if (check && !(await check)) return false;
      const wait = await this.limiter.tryStart([rule]);
      if (wait === 0) return true;
      if (wait <= CHECK_LEAD_MS) {
        await sleep(wait);
        continue;
      }
      await sleep(wait - CHECK_LEAD_MS);
      check = stillWanted();
      await sleep(CHECK_LEAD_MS);
    }
  }

  /** A receiver is slow when its attempts take long, or one being sent has taken long already (a receiver that stopped answering). */
  private isSlow(lane: Lane): boolean {
    return this.attemptTime(lane) > SLOW_ATTEMPT_MS;
  }

  private inFlightCap(lane: Lane): number {
    return this.isSlow(lane) ? Math.min(lane.inFlightLimit, ENDPOINT_IN_FLIGHT_CAP) : lane.inFlightLimit;
  }

  /** The time an attempt is expected to take: as measured, or as long as the oldest one being sent has taken when longer. */
  private attemptTime(lane: Lane): number {
    const oldest = lane.sendingSince.length > 0 ? Math.min(...lane.sendingSince) : Date.now();
    return Math.max(lane.attemptMs, Date.now() - oldest, 1);
  }

  /** When the attempt at `position` in the lane should have been made, plus the margin. */
  private checkBackDelay(lane: Lane, rate: number | null, position: number): number {
    const perSecond = Math.min(rate ?? Infinity, (this.inFlightCap(lane) * 1000) / this.attemptTime(lane));
    return Math.round((position / perSecond) * 1000) + CHECK_BACK_MARGIN_MS;
  }

  private lane(endpointId: string): Lane {
    let lane = this.lanes.get(endpointId);
    if (!lane) {
      lane = {
        waiting: [],
        held: new Set(),
        inFlight: 0,
        sendingSince: [],
        holders: 0,
        attemptMs: DEFAULT_ATTEMPT_MS,
        turns: Promise.resolve(),
        inFlightLimit: FAST_IN_FLIGHT_CAP,
      };
      this.lanes.set(endpointId, lane);
    }
    return lane;
  }

  private forgetIdle(endpointId: string, lane: Lane): void {
    if (this.lanes.size > 10_000 && lane.held.size === 0 && lane.holders === 0 && lane.attemptMs <= DEFAULT_ATTEMPT_MS) {
      this.lanes.delete(endpointId);
    }
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

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function keyOf(attempt: EndpointAttempt): string {
  return `${attempt.deliveryId}:${attempt.attempt}`;
}
