import { Module } from '@nestjs/common';
import { WorkspacesModule } from '../workspaces/workspaces.module.js';
import { WebhookDeliveryService } from './webhook-delivery.service.js';
import { WebhookPublisher } from './webhook-publisher.js';
import { WebhookSender } from './webhook-sender.js';
import { WebhooksController } from './webhooks.controller.js';
import { WebhooksProcessor } from './webhooks.processor.js';

/** Outgoing webhooks (API.md §11): other modules publish through {@link WebhookPublisher}. */
@Module({
  imports: [WorkspacesModule],
  controllers: [WebhooksController],
  providers: [WebhookPublisher, WebhookSender, WebhookDeliveryService, WebhooksProcessor],
  exports: [WebhookPublisher],
})
export class WebhooksModule {}
