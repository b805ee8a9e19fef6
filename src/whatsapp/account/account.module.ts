import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ChannelsModule } from '../../channels/channels.module.js';
import { WhatsAppRateCard } from './rate-card.entity.js';
import { WhatsAppRateCardsRepository } from './rate-cards.repository.js';
import { WhatsAppUsageDay } from './usage-day.entity.js';
import { WhatsAppUsageController } from './usage.controller.js';
import { WhatsAppUsageRepository } from './usage.repository.js';
import { WhatsAppUsage } from './usage.service.js';

/** The WhatsApp account's side of billing: usage counted from Meta's pricing, and the workspace's rate card. */
@Module({
  imports: [TypeOrmModule.forFeature([WhatsAppUsageDay, WhatsAppRateCard]), ChannelsModule],
  controllers: [WhatsAppUsageController],
  providers: [WhatsAppUsage, WhatsAppUsageRepository, WhatsAppRateCardsRepository],
  exports: [WhatsAppUsage],
})
export class WhatsAppAccountModule {}
