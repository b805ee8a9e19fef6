import { Module } from '@nestjs/common';
import { OutboundIvrModule } from '../outbound-ivr/outbound-ivr.module.js';
import { WhatsAppModule } from '../whatsapp/whatsapp.module.js';
import { ScheduledController } from './scheduled.controller.js';

/** Scheduled sends and calls (API.md §13): `DELETE /v1/scheduled/{id}` over both kinds. */
@Module({
  imports: [WhatsAppModule, OutboundIvrModule],
  controllers: [ScheduledController],
})
export class ScheduledModule {}
