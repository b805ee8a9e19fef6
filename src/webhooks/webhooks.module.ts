import { Module, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../config/app-config.js';
import { Retention } from '../queue/retention.service.js';
import { WorkspacesModule } from '../workspaces/workspaces.module.js';
import { EndpointGate } from './endpoint-gate.js';
import { EndpointHealth } from './endpoint-health.js';
import { EndpointPresence } from './endpoint-presence.js';
import { EndpointSecrets } from './endpoint-secrets.js';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import { WebhookDelivery } from './webhook-delivery.entity.js';
import { WebhookDeliveryService } from './webhook-delivery.service.js';
import { WebhookEndpoint } from './webhook-endpoint.entity.js';
import { WebhookEndpointsController } from './webhook-endpoints.controller.js';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository.js';
import { WebhookEndpointsService } from './webhook-endpoints.service.js';
import { WebhookEventTypesController } from './webhook-event-types.controller.js';
import { WebhookPublisher } from './webhook-publisher.js';
import { WebhookSender } from './webhook-sender.js';
import { WebhooksController } from './webhooks.controller.js';
import { WebhooksProcessor } from './webhooks.processor.js';

/** Outgoing webhooks (API.md §11): other modules publish through {@link WebhookPublisher}. */
@Module({
  imports: [TypeOrmModule.forFeature([WebhookDelivery, WebhookEndpoint]), WorkspacesModule],
  controllers: [WebhooksController, WebhookEndpointsController, WebhookEventTypesController],
  providers: [
    WebhookDeliveriesRepository,
    WebhookEndpointsRepository,
    WebhookPublisher,
    WebhookSender,
    WebhookDeliveryService,
    WebhooksProcessor,
    WebhookEndpointsService,
    EndpointGate,
    EndpointSecrets,
    EndpointHealth,
    EndpointPresence,
  ],
  exports: [WebhookPublisher],
})
export class WebhooksModule implements OnModuleInit {
  constructor(
    private readonly retention: Retention,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly config: AppConfig,
  ) {}

  /** The delivery log is kept WEBHOOK_DELIVERY_RETENTION. */
  onModuleInit(): void {
    this.retention.register({
      table: 'webhook_deliveries',
      keepMs: this.config.retention.webhookDeliveriesMs,
      deleteBatch: (cutoff, limit) => this.deliveries.deleteUnscopedFinishedBefore(cutoff, limit),
    });
  }
}
