import { Module } from '@nestjs/common';
import { CallSignalBus } from './call-signal-bus.js';
import { MediaPacingLog } from './media-pacing-log.js';

/** WhatsApp voice calls (API.md §15): the signals of calls under way and the media pacing report. */
@Module({
  providers: [CallSignalBus, MediaPacingLog],
  exports: [CallSignalBus],
})
export class WhatsAppCallsModule {}
