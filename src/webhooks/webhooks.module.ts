import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WorkspacesModule } from '../workspaces/workspaces.module.js';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import { WebhookDelivery } from './webhook-delivery.entity.js';
import { WebhookDeliveryService } from './webhook-delivery.service.js';
import { WebhookPublisher } from './webhook-publisher.js';
import { WebhookSender } from './webhook-sender.js';
import { WebhooksController } from './webhooks.controller.js';
import { WebhooksProcessor } from './webhooks.processor.js';

/** Outgoing webhooks (API.md §11): other modules publish through {@link WebhookPublisher}. */
@Module({
  imports: [TypeOrmModule.forFeature([WebhookDelivery]), WorkspacesModule],
  controllers: [WebhooksController],
  providers: [WebhookDeliveriesRepository, WebhookPublisher, WebhookSender, WebhookDeliveryService, WebhooksProcessor],
  exports: [WebhookPublisher],
})
export class WebhooksModule {}
