import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ContactPropertiesModule } from '../contact-properties/contact-properties.module.js';
import { ContactsModule } from '../contacts/contacts.module.js';
import { SendPoliciesRepository } from './send-policies.repository.js';
import { SendPolicyController } from './send-policy.controller.js';
import { SendPolicy } from './send-policy.entity.js';
import { SendPolicyService } from './send-policy.service.js';
import { ConversationsModule } from '../conversations/conversations.module.js';
import { SendPolicyGate } from './send-policy-gate.service.js';
import { SendScheduler } from './send-scheduler.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([SendPolicy]), ContactPropertiesModule, ContactsModule, ConversationsModule],
  controllers: [SendPolicyController],
  providers: [SendPolicyService, SendPoliciesRepository, SendScheduler, SendPolicyGate],
  exports: [SendPolicyService, SendScheduler, SendPolicyGate],
})
export class SendPolicyModule {}
