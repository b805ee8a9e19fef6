import { Module } from '@nestjs/common';
import { CallSignalBus } from './call-signal-bus.js';
import { MediaThreadLog } from './media-thread-log.js';

/** WhatsApp voice calls (API.md §15): the signals of calls under way and the media thread's settings and reports. */
@Module({
  providers: [CallSignalBus, MediaThreadLog],
  exports: [CallSignalBus],
})
export class WhatsAppCallsModule {}
