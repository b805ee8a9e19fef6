import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SendPoliciesRepository } from './send-policies.repository.js';
import { SendPolicyController } from './send-policy.controller.js';
import { SendPolicy } from './send-policy.entity.js';
import { SendPolicyService } from './send-policy.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([SendPolicy])],
  controllers: [SendPolicyController],
  providers: [SendPolicyService, SendPoliciesRepository],
  exports: [SendPolicyService],
})
export class SendPolicyModule {}
