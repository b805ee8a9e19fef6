import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ChannelsModule } from '../channels/channels.module.js';
import { BusinessLimits } from './business-limits.entity.js';
import { BusinessLimitsRepository } from './business-limits.repository.js';
import { ChannelLimits } from './channel-limits.entity.js';
import { ChannelLimitsRepository } from './channel-limits.repository.js';
import { ChannelLimitsService } from './channel-limits.service.js';
import { ChannelLimitsAdminController, ChannelLimitsController } from './governor.controller.js';
import { GovernorService } from './governor.service.js';
import { MetaTiers } from './meta-tiers.service.js';
import { SendGovernor } from './send-governor.service.js';
import { WebhooksModule } from '../webhooks/webhooks.module.js';

/** The per-channel send governor (API.md §13, §14): its tiers in PostgreSQL (set by operators and by Meta's webhooks), its counters in Redis. WhatsApp sends and calls ask it. */
@Module({
  imports: [TypeOrmModule.forFeature([ChannelLimits, BusinessLimits]), ChannelsModule, WebhooksModule],
  controllers: [ChannelLimitsController, ChannelLimitsAdminController],
  providers: [ChannelLimitsRepository, BusinessLimitsRepository, ChannelLimitsService, SendGovernor, GovernorService, MetaTiers],
  exports: [SendGovernor, MetaTiers],
})
export class GovernorModule {}
