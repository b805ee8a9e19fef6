import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CallIntelligenceController } from './call-intelligence.controller.js';
import { CallIntelligenceSettings } from './call-intelligence.entity.js';
import { CallIntelligenceRepository } from './call-intelligence.repository.js';
import { CallIntelligenceService } from './call-intelligence.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([CallIntelligenceSettings])],
  controllers: [CallIntelligenceController],
  providers: [CallIntelligenceService, CallIntelligenceRepository],
  exports: [CallIntelligenceService],
})
export class CallIntelligenceModule {}
