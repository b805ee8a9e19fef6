import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ChannelsModule } from '../channels/channels.module.js';
import { ContactPropertiesModule } from '../contact-properties/contact-properties.module.js';
import { ContactsModule } from '../contacts/contacts.module.js';
import { WhatsAppModule } from '../whatsapp/whatsapp.module.js';
import { OutboundIvrModule } from '../outbound-ivr/outbound-ivr.module.js';
import { CampaignRecipient } from './campaign-recipient.entity.js';
import { Campaign } from './campaign.entity.js';
import { CampaignPacer } from './campaign-pacer.js';
import { GovernorModule } from '../governor/governor.module.js';
import { ConversationsModule } from '../conversations/conversations.module.js';
import { CampaignDispatcher } from './campaign-dispatcher.service.js';
import { CampaignRecipientsRepository } from './campaign-recipients.repository.js';
import { CampaignsController } from './campaigns.controller.js';
import { CampaignsProcessor } from './campaigns.processor.js';
import { CampaignsRepository } from './campaigns.repository.js';
import { CampaignsService } from './campaigns.service.js';

/** Campaigns (API.md §13): template broadcasts and call lists to an audience snapshotted at start. */
@Module({
  imports: [
    TypeOrmModule.forFeature([Campaign, CampaignRecipient]),
    ChannelsModule,
    ContactsModule,
    ContactPropertiesModule,
    WhatsAppModule,
    OutboundIvrModule,
    GovernorModule,
    ConversationsModule,
  ],
  controllers: [CampaignsController],
  providers: [CampaignsService, CampaignDispatcher, CampaignPacer, CampaignsProcessor, CampaignsRepository, CampaignRecipientsRepository],
})
export class CampaignsModule {}
