import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config.js';
import { newWebhookSecret, WEBHOOK_SECRET_ROTATION_OVERLAP_MS } from '../common/crypto/webhook-secret.js';
import { newId } from '../common/id.js';
import type { PagedRequestDto } from '../common/paging/paged-request.dto.js';
import type { PagedResult } from '../common/paging/paged-result.js';
import { parseIsoDateTime } from '../common/time/iso-date-time.js';
import { Outbox } from '../queue/outbox.service.js';
import { JobName } from '../queue/queue-names.js';
import type { CreateWebhookEndpointDto, UpdateWebhookEndpointDto } from './dto/webhook-endpoint.dto.js';
import { EndpointSecrets } from './endpoint-secrets.js';
import { assertEventType, eventTypeCatalog, type JsonSchema } from './webhook-event-catalog.js';
import { sampleOf } from './webhook-event-samples.js';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import type { WebhookDelivery } from './webhook-delivery.entity.js';
import type { WebhookEndpoint } from './webhook-endpoint.entity.js';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository.js';
import { WebhookPublisher } from './webhook-publisher.js';
import { assertWebhookTarget } from './webhook-target.js';
import { assertEndpointHeaders } from './endpoint-headers.js';
import { DeliveryNotFound, EndpointNotFound } from './webhooks.errors.js';
import { EndpointPresence } from './endpoint-presence.js';
import { inTransaction } from '../database/transactions.js';

type EndpointFields = Pick<
  WebhookEndpoint,
  'url' | 'description' | 'eventTypes' | 'channelIds' | 'rateLimitPerSecond' | 'ordered' | 'headers' | 'disabled'
>;

/** A workspace's webhook endpoints (API.md §11.1): their settings, secrets, test events and recovery. */
@Injectable()
export class WebhookEndpointsService {
  private catalog: ReturnType<typeof eventTypeCatalog> | undefined;

  constructor(
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly secrets: EndpointSecrets,
    private readonly publisher: WebhookPublisher,
    private readonly outbox: Outbox,
    private readonly config: AppConfig,
    private readonly presence: EndpointPresence,
  ) {}

  /** The catalog of event types with their payload schemas (built once from the DTO classes). */
  eventTypes(): ReturnType<typeof eventTypeCatalog> {
    return (this.catalog ??= eventTypeCatalog());
  }

  async create(workspaceId: string, input: CreateWebhookEndpointDto): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
    const fields = this.checked(input);
    const secret = newWebhookSecret();
    const endpoint = this.endpoints.create(workspaceId, {
      id: newId(),
      url: fields.url,
      description: fields.description ?? null,
      eventTypes: fields.eventTypes ?? null,
      channelIds: fields.channelIds ?? null,
      rateLimitPerSecond: fields.rateLimitPerSecond ?? null,
      ordered: fields.ordered ?? false,
      headers: fields.headers ?? {},
      disabled: fields.disabled ?? false,
      disabledReason: null,
      disabledAt: fields.disabled ? new Date() : null,
      secretSealed: this.secrets.seal(secret),
      previousSecretSealed: null,
      previousSecretExpiresAt: null,
      failingSince: null,
    });
    await this.endpoints.save(workspaceId, endpoint);
    this.presence.changed(workspaceId);
    return { endpoint: await this.get(workspaceId, endpoint.id), secret };
  }

  list(workspaceId: string, paging: PagedRequestDto): Promise<PagedResult<WebhookEndpoint>> {
    return this.endpoints.page(workspaceId, paging.skipCount, paging.maxResultCount);
  }

  async get(workspaceId: string, id: string): Promise<WebhookEndpoint> {
    const endpoint = await this.endpoints.findById(workspaceId, id);
    if (!endpoint) throw EndpointNotFound(id);
    return endpoint;
  }

  /** Partial update: the fields given change; enabling a disabled endpoint clears why it was disabled. */
  async update(workspaceId: string, id: string, input: UpdateWebhookEndpointDto): Promise<WebhookEndpoint> {
    const fields = this.checked(input);
    const endpoint = await this.get(workspaceId, id);
    const patch: Partial<WebhookEndpoint> = {};
    for (const key of ['url', 'description', 'eventTypes', 'channelIds', 'rateLimitPerSecond', 'ordered', 'headers', 'disabled'] as const) {
      if (fields[key] !== undefined) (patch as Record<string, unknown>)[key] = fields[key];
    }
    if (patch.headers === null) patch.headers = {};
    if (patch.disabled === false && endpoint.disabled) Object.assign(patch, { disabledReason: null, disabledAt: null, failingSince: null });
    if (patch.disabled === true && !endpoint.disabled)
      Object.assign(patch, { disabledReason: 'Disabled by request', disabledAt: new Date() });
    if (Object.keys(patch).length > 0) {
      await this.endpoints.update(workspaceId, { id }, { ...patch, lastModificationTime: new Date() });
      this.presence.changed(workspaceId);
    }
    return this.get(workspaceId, id);
  }

  /** Deletes the endpoint; its pending deliveries end (Failed, saying why), its log stays. */
  async remove(workspaceId: string, id: string): Promise<void> {
    await inTransaction(async () => {
      if ((await this.endpoints.delete(workspaceId, { id })) === 0) throw EndpointNotFound(id);
      await this.deliveries.failPendingOfEndpoint(workspaceId, id, 'Cancelled: the endpoint was deleted');
    });
    this.presence.changed(workspaceId);
  }

  async secret(workspaceId: string, id: string): Promise<string> {
    return this.secrets.open((await this.get(workspaceId, id)).secretSealed);
  }

  /** A new secret; the old one keeps signing beside it for 24 h. */
  async rotateSecret(workspaceId: string, id: string): Promise<string> {
    const endpoint = await this.get(workspaceId, id);
    const secret = newWebhookSecret();
    await this.endpoints.update(
      workspaceId,
      { id },
      {
        secretSealed: this.secrets.seal(secret),
        previousSecretSealed: endpoint.secretSealed,
        previousSecretExpiresAt: new Date(Date.now() + WEBHOOK_SECRET_ROTATION_OVERLAP_MS),
      },
    );
    return secret;
  }

  /** Sends a sample event of `eventType` (any catalog type, whatever the endpoint's filters) now; the delivery. */
  async sendTest(workspaceId: string, id: string, eventType: string): Promise<WebhookDelivery> {
    assertEventType('eventType', eventType);
    await this.get(workspaceId, id);
    const entry = this.eventTypes().find((e) => e.type === eventType)!;
    const defs = (entry.schema.$defs ?? {}) as Record<string, JsonSchema>;
    const data = sampleOf((entry.schema.properties as Record<string, JsonSchema>).data ?? {}, defs);
    const rows = await this.publisher.writeForEndpoint(workspaceId, id, eventType, data);
    const deliveryId = (rows[0]?.payload as { deliveryId?: string } | undefined)?.deliveryId;
    const delivery = deliveryId ? await this.deliveries.findById(workspaceId, deliveryId) : null;
    if (!delivery) throw DeliveryNotFound(deliveryId ?? id);
    return delivery;
  }

  /** Sends again every delivery to the endpoint created since `since` that ended Failed; how many. */
  async recover(workspaceId: string, id: string, since: string): Promise<number> {
    await this.get(workspaceId, id);
    const from = parseIsoDateTime(since)!;
    return inTransaction(async () => {
      const ids = await this.deliveries.requeueFailedSince(workspaceId, id, from);
      await this.outbox.enqueue(
        ids.map((deliveryId) => ({ jobName: JobName.DeliverWebhook, workspaceId, payload: { deliveryId, attempt: 1, endpointId: id } })),
      );
      return ids.length;
    });
  }

  /** The input checked beyond its DTO: known event types, allowed headers, and no private target (when not allowed). */
  private checked(input: UpdateWebhookEndpointDto): Partial<EndpointFields> {
    input.eventTypes?.forEach((type, i) => assertEventType(`eventTypes[${i}]`, type));
    if (input.headers) assertEndpointHeaders(input.headers);
    if (input.url) assertWebhookTarget(input.url, 'url', this.config.webhooks.allowPrivateNetworks);
    const channelIds = input.channelIds?.map((channelId) => channelId.toLowerCase());
    const eventTypes = input.eventTypes && [...new Set(input.eventTypes)];
    return { ...(input as Partial<EndpointFields>), ...(channelIds ? { channelIds } : {}), ...(eventTypes ? { eventTypes } : {}) };
  }
}
