import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OutboundIvrFlowHead } from './outbound-ivr-flow-head.entity.js';
import { OutboundIvrFlowVersion } from './outbound-ivr-flow-version.entity.js';
import { OutboundIvrFlowVersionsRepository } from './outbound-ivr-flow-versions.repository.js';
import { OutboundIvrFlowsController } from './outbound-ivr-flows.controller.js';
import { OutboundIvrFlowsRepository } from './outbound-ivr-flows.repository.js';
import { OutboundIvrFlowsService } from './outbound-ivr-flows.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([OutboundIvrFlowHead, OutboundIvrFlowVersion])],
  controllers: [OutboundIvrFlowsController],
  providers: [OutboundIvrFlowsService, OutboundIvrFlowsRepository, OutboundIvrFlowVersionsRepository],
  exports: [OutboundIvrFlowsService],
})
export class OutboundIvrFlowsModule {}
