import { Module } from '@nestjs/common';
import { OutboundIvrFlowsController } from './outbound-ivr-flows.controller.js';
import { OutboundIvrFlowsService } from './outbound-ivr-flows.service.js';

@Module({ controllers: [OutboundIvrFlowsController], providers: [OutboundIvrFlowsService], exports: [OutboundIvrFlowsService] })
export class OutboundIvrFlowsModule {}
