import { Injectable, Logger } from '@nestjs/common';
import { Counter, Histogram, Registry } from 'prom-client';
import { AppConfig } from '../config/app-config.js';
import type { PagedResult } from '../common/paging/paged-result.js';
import { Outbox, type OutboxEntry } from '../queue/outbox.service.js';
import { JobName } from '../queue/queue-names.js';
import { WorkspacesService } from '../workspaces/workspaces.service.js';
import type { ListWebhookDeliveriesDto } from './dto/webhook-delivery.dto.js';
import { StatementBatcher } from '../common/batching/statement-batcher.js';
import {
  WebhookDeliveriesRepository,
  type AttemptToClaim,
  type ClaimedDelivery,
  type DeliveryAttempt,
  type EndedAttempt,
} from './webhook-deliveries.repository.js';
import type { WebhookDelivery } from './webhook-delivery.entity.js';
import { WebhookDeliveryStatus } from './webhook-kind.js';
import { ATTEMPT_TIMEOUT_MS, WebhookSender, type AttemptOutcome } from './webhook-sender.js';
import { DeliveryInProgress, DeliveryNotFound } from './webhooks.errors.js';
import type { JobPayloads } from '../queue/job-payloads.js';
import { EndpointGate, MAX_THROTTLE_WAIT_MS, type EndpointAttempt, type RunAttempt, type Turn } from './endpoint-gate.js';
import { EndpointHealth } from './endpoint-health.js';
import { EndpointSecrets } from './endpoint-secrets.js';
import { assertEventType } from './webhook-event-catalog.js';
import { failedAttemptRecord } from './failed-attempt-log.js';
import { inTransaction } from '../database/transactions.js';

export type DeliverWebhookJob = JobPayloads[JobName.DeliverWebhook] & { workspaceId: string };

/** An attempt's lease: longer than the attempt's own deadline, so only a dead worker's lease runs out. */
const LEASE_MS = ATTEMPT_TIMEOUT_MS + 5_000;
/** The lease of an attempt to an endpoint, which may wait for the endpoint's throttle once claimed. */
const ENDPOINT_LEASE_MS = MAX_THROTTLE_WAIT_MS + LEASE_MS;

const SECRETS_CACHE_MS = 5_000;

/** Claims and ended outcomes go to the database in set-based statements of at most this many rows. */
const STATEMENT_BATCH = 100;
/** Such statements of each kind running at once; attempts arriving meanwhile gather for the next. */
const STATEMENTS_IN_FLIGHT = 2;

type Verdict =
  | { status: WebhookDeliveryStatus.Pending; nextAttemptAt: Date; outcome: 'retrying' }
  | { status: WebhookDeliveryStatus.Succeeded | WebhookDeliveryStatus.Failed; nextAttemptAt: null; outcome: 'succeeded' | 'failed' };

/** Delivers webhook events attempt by attempt, keeps their log, and answers the delivery-log API. */
@Injectable()
export class WebhookDeliveryService {
  private readonly logger = new Logger(WebhookDeliveryService.name);
  private readonly secretsCache = new Map<string, { secrets: string[]; until: number }>();
  private readonly outcomes: Counter<'kind' | 'outcome'>;
  private readonly attemptDuration: Histogram<'kind'>;
  private readonly claims: StatementBatcher<AttemptToClaim, ClaimedDelivery | undefined>;
  private readonly endings: StatementBatcher<EndedAttempt, void>;
  private readonly checkBacks: StatementBatcher<OutboxEntry, void>;
  private readonly dueChecks: StatementBatcher<DeliveryAttempt, boolean>;

  constructor(
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly sender: WebhookSender,
    private readonly workspaces: WorkspacesService,
    private readonly outbox: Outbox,
    private readonly config: AppConfig,
    private readonly gate: EndpointGate,
    private readonly endpointSecrets: EndpointSecrets,
    private readonly endpointHealth: EndpointHealth,
    registry: Registry,
  ) {
    this.outcomes = new Counter({
      name: 'webhook_deliveries_total',
      help: 'Webhook attempts by kind and outcome (succeeded, retrying, failed)',
      labelNames: ['kind', 'outcome'],
      registers: [registry],
    });
    this.attemptDuration = new Histogram({
      name: 'webhook_attempt_duration_seconds',
      help: 'Time of one webhook attempt, request to response',
      labelNames: ['kind'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
    const batching = { maxBatchSize: STATEMENT_BATCH, maxInFlight: STATEMENTS_IN_FLIGHT };
    this.claims = new StatementBatcher((items) => this.deliveries.claimMany(items), batching);
    this.endings = new StatementBatcher(async (items) => {
      await this.deliveries.recordEndedMany(items);
      return items.map(() => undefined);
    }, batching);
    this.checkBacks = new StatementBatcher(async (entries) => {
      await this.outbox.enqueue([...entries]);
      return entries.map(() => undefined);
    }, batching);
    this.dueChecks = new StatementBatcher((items) => this.deliveries.dueMany(items), batching);
  }

  /**
   * Makes attempt number `attempt` of the current cycle. A job for an attempt that was already
   * made, or that another worker is making, does nothing; one whose worker died mid-attempt takes
   * over once the lease ran out (the receiver may then see the event twice, same `webhook-id`).
   * A delivery to an endpoint goes through the endpoint's lane (throttle, in-flight cap); when the
   * job lets its slot go before the attempt ended, a check-back job is queued for when the attempt
   * should be long done (see {@link EndpointGate}).
   */
  async attempt(job: DeliverWebhookJob): Promise<void> {
    const { workspaceId, deliveryId, attempt, endpointId, checkBack } = job;
    if (!endpointId) return this.attemptAdmitted(workspaceId, deliveryId, attempt);
    const endpointAttempt: EndpointAttempt = { workspaceId, deliveryId, attempt, endpointId };
    // A check-back finds its attempt made (nothing to do), waiting here (armed again), or never made (its worker died).
    if (checkBack && !this.gate.holds(endpointAttempt) && !(await this.dueChecks.add({ workspaceId, id: deliveryId, attempt }))) {
      return;
    }
    const checkBackInMs = await this.gate.submit(endpointAttempt, this.runEndpointAttempt);
    if (checkBackInMs === undefined) return;
    await this.checkBacks.add({
      jobName: JobName.DeliverWebhook,
      workspaceId,
      runAt: new Date(Date.now() + checkBackInMs),
      payload: { deliveryId, attempt, endpointId, checkBack: true },
    });
  }

  private readonly runEndpointAttempt: RunAttempt = (a, turn) => this.attemptAdmitted(a.workspaceId, a.deliveryId, a.attempt, turn);

  private async attemptAdmitted(workspaceId: string, deliveryId: string, attempt: number, turn?: Turn): Promise<void> {
    const claimed = await this.claim(workspaceId, deliveryId, attempt, turn ? ENDPOINT_LEASE_MS : LEASE_MS);
    if (!claimed) return;
    // After a wait for the throttle, the delivery may have been stopped meanwhile (its endpoint deleted or disabled).
    const stillPending = () => this.deliveries.exists(workspaceId, { id: claimed.id, status: WebhookDeliveryStatus.Pending });
    if (turn && !(await turn(claimed.endpoint?.rate_limit_per_second ?? null, stillPending))) return;
    const stopTimer = this.attemptDuration.startTimer({ kind: claimed.kind });
    const outcome = await this.send(claimed);
    stopTimer();
    const verdict = this.judge(outcome, attempt);
    await this.record(claimed, attempt, outcome, verdict);
    this.outcomes.inc({ kind: claimed.kind, outcome: verdict.outcome });
    if (claimed.endpoint) await this.endpointHealth.afterAttempt(claimed, outcome.kind === 'success', verdict.status);
  }

  private async send(claimed: ClaimedDelivery): Promise<AttemptOutcome> {
    const body = JSON.stringify(claimed.payload);
    if (!claimed.endpoint_id) {
      const secrets = await this.signingSecrets(claimed.workspace_id);
      return this.sender.send({ webhookId: claimed.id, kind: claimed.kind, targetUrl: claimed.target_url, body, secrets });
    }
    const endpoint = claimed.endpoint;
    if (!endpoint) return { kind: 'refused', error: 'The endpoint was deleted' };
    if (endpoint.disabled) return { kind: 'refused', error: 'The endpoint is disabled' };
    return this.sender.send({
      webhookId: claimed.id,
      kind: claimed.kind,
      targetUrl: endpoint.url,
      body,
      secrets: this.endpointSecrets.of(endpoint),
      headers: endpoint.headers,
    });
  }

  list(workspaceId: string, query: ListWebhookDeliveriesDto): Promise<PagedResult<WebhookDelivery>> {
    if (query.eventType) assertEventType('eventType', query.eventType);
    if (query.kind && query.eventType && query.kind !== query.eventType) return Promise.resolve({ totalCount: 0, items: [] });
    return this.deliveries.page(
      workspaceId,
      { kind: query.kind ?? query.eventType, status: query.status, endpointId: query.endpointId },
      query.skipCount,
      query.maxResultCount,
    );
  }

  /** Queues a finished event (succeeded or failed) for a new cycle of attempts, same `webhook-id`. */
  async redeliver(workspaceId: string, id: string): Promise<WebhookDelivery> {
    await inTransaction(async () => {
      const deliveries = this.deliveries;
      const delivery = await deliveries.findById(workspaceId, id, { lock: true });
      if (!delivery) throw DeliveryNotFound(id);
      if (delivery.status === WebhookDeliveryStatus.Pending) throw DeliveryInProgress(id);
      await deliveries.update(
        workspaceId,
        { id },
        { status: WebhookDeliveryStatus.Pending, cycleAttempts: 0, nextAttemptAt: new Date(), leaseUntil: null },
      );
      await this.outbox.enqueue([{ jobName: JobName.DeliverWebhook, workspaceId, payload: { deliveryId: id, attempt: 1 } }]);
    });
    const redelivered = await this.deliveries.findById(workspaceId, id);
    if (!redelivered) throw DeliveryNotFound(id);
    return redelivered;
  }

  private async claim(workspaceId: string, id: string, attempt: number, leaseMs: number): Promise<ClaimedDelivery | undefined> {
    const claimed = await this.claims.add({ workspaceId, id, attempt, leaseSeconds: leaseMs / 1000 });
    if (claimed) return claimed;
    // Not claimable: either this attempt was made already (a duplicate job: nothing to do), or a
    // worker holds it right now, perhaps one that died; then try again once its lease may be over.
    const held = await this.deliveries.findLeaseHeld(workspaceId, id, attempt);
    if (held?.leaseUntil) await this.checkBackAfterLease(held.workspaceId, held.id, held.leaseUntil, attempt);
    return undefined;
  }

  /** Another worker holds the attempt (or held it and died): look again once its lease has run out. */
  private async checkBackAfterLease(workspaceId: string, deliveryId: string, leaseUntil: Date, attempt: number): Promise<void> {
    const runAt = new Date(Math.max(leaseUntil.getTime(), Date.now()) + 100);
    await this.outbox.enqueue([{ jobName: JobName.DeliverWebhook, workspaceId, runAt, payload: { deliveryId, attempt } }]);
  }

  private judge(outcome: AttemptOutcome, attempt: number): Verdict {
    if (outcome.kind === 'success') return { status: WebhookDeliveryStatus.Succeeded, nextAttemptAt: null, outcome: 'succeeded' };
    const gone = outcome.kind === 'http-failure' && outcome.statusCode === 410;
    const schedule = this.config.webhooks.retryScheduleMs;
    if (gone || outcome.kind === 'refused' || attempt > schedule.length) {
      return { status: WebhookDeliveryStatus.Failed, nextAttemptAt: null, outcome: 'failed' };
    }
    const retryAfter = outcome.kind === 'http-failure' ? (outcome.retryAfterMs ?? 0) : 0;
    return {
      status: WebhookDeliveryStatus.Pending,
      nextAttemptAt: new Date(Date.now() + Math.max(schedule[attempt - 1], retryAfter)),
      outcome: 'retrying',
    };
  }

  private async record(claimed: ClaimedDelivery, attempt: number, outcome: AttemptOutcome, verdict: Verdict): Promise<void> {
    const statusCode = outcome.kind === 'success' || outcome.kind === 'http-failure' ? outcome.statusCode : null;
    const error =
      outcome.kind === 'network-failure' || outcome.kind === 'refused'
        ? outcome.error
        : statusCode && statusCode >= 300
          ? `HTTP ${statusCode}`
          : null;
    const workspaceId = claimed.workspace_id;
    const lastError = error?.slice(0, 1000) ?? null;
    if (verdict.status !== WebhookDeliveryStatus.Pending) {
      // Ended: batched with other attempts' outcomes, no transaction (the hot path at 1,000+ deliveries/s).
      await this.endings.add({ workspaceId, id: claimed.id, status: verdict.status, attempt, lastStatusCode: statusCode, lastError });
    } else {
      // The next attempt is scheduled with the outcome, atomically.
      const changes = {
        status: verdict.status,
        attempts: () => 'attempts + 1',
        cycleAttempts: attempt,
        lastStatusCode: statusCode,
        lastError,
        lastAttemptAt: new Date(),
        nextAttemptAt: verdict.nextAttemptAt,
        leaseUntil: null,
      };
      await inTransaction(async () => {
        await this.deliveries.update(workspaceId, { id: claimed.id }, changes);
        await this.outbox.enqueue([
          {
            jobName: JobName.DeliverWebhook,
            workspaceId,
            runAt: verdict.nextAttemptAt,
            payload: { deliveryId: claimed.id, attempt: attempt + 1 },
          },
        ]);
      });
    }
    if (outcome.kind !== 'success') {
      const targetUrl = claimed.endpoint?.url ?? claimed.target_url;
      const record = failedAttemptRecord({
        deliveryId: claimed.id,
        kind: claimed.kind,
        targetUrl,
        attempt,
        outcome,
        nextAttemptAt: verdict.nextAttemptAt,
      });
      this.logger.warn(record);
    }
  }

  private async signingSecrets(workspaceId: string): Promise<string[]> {
    const hit = this.secretsCache.get(workspaceId);
    if (hit && hit.until > Date.now()) return hit.secrets;
    const secrets = await this.workspaces.signingSecrets(workspaceId);
    if (this.secretsCache.size > 10_000) this.secretsCache.clear();
    this.secretsCache.set(workspaceId, { secrets, until: Date.now() + SECRETS_CACHE_MS });
    return secrets;
  }
}
