import { Module } from '@nestjs/common';
import { ChannelsModule } from '../../channels/channels.module.js';
import { OutboundIvrFlowsModule } from '../../outbound-ivr-flows/outbound-ivr-flows.module.js';
import { WhatsAppModule } from '../../whatsapp/whatsapp.module.js';
import { CallingSettingsController } from './calling-settings.controller.js';
import { CallingSettingsService } from './calling-settings.service.js';

/**
 * Set WhatsApp Calling (API.md §15). Apart from `WhatsAppCallsModule`, which the WhatsApp and
 * IVR modules import: the settings check their permission template against the channel's templates
 * (WhatsAppModule), and a module of their own keeps that import free of cycles.
 */
@Module({
  imports: [ChannelsModule, OutboundIvrFlowsModule, WhatsAppModule],
  controllers: [CallingSettingsController],
  providers: [CallingSettingsService],
})
export class CallingSettingsModule {}
