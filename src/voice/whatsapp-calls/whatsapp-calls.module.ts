import { Module } from '@nestjs/common';
import { ChannelsModule } from '../../channels/channels.module.js';
import { OutboundIvrFlowsModule } from '../../outbound-ivr-flows/outbound-ivr-flows.module.js';
import { CallingSettingsController } from './calling-settings.controller.js';
import { CallingSettingsService } from './calling-settings.service.js';
import { CallSignalBus } from './call-signal-bus.js';
import { MediaPacingLog } from './media-pacing-log.js';

/** WhatsApp voice calls (API.md §15). */
@Module({
  imports: [ChannelsModule, OutboundIvrFlowsModule],
  controllers: [CallingSettingsController],
  providers: [CallingSettingsService, CallSignalBus, MediaPacingLog],
  exports: [CallSignalBus],
})
export class WhatsAppCallsModule {}
