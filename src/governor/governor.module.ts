import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ChannelsModule } from '../channels/channels.module.js';
import { ChannelLimits } from './channel-limits.entity.js';
import { ChannelLimitsRepository } from './channel-limits.repository.js';
import { ChannelLimitsService } from './channel-limits.service.js';
import { ChannelLimitsAdminController, ChannelLimitsController } from './governor.controller.js';
import { GovernorService } from './governor.service.js';
import { SendGovernor } from './send-governor.service.js';

/** The per-channel send governor (API.md §13): its tiers in PostgreSQL, its counters in Redis. WhatsApp sends and calls ask it. */
@Module({
  imports: [TypeOrmModule.forFeature([ChannelLimits]), ChannelsModule],
  controllers: [ChannelLimitsController, ChannelLimitsAdminController],
  providers: [ChannelLimitsRepository, ChannelLimitsService, SendGovernor, GovernorService],
  exports: [SendGovernor],
})
export class GovernorModule {}
