import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ChannelsModule } from '../channels/channels.module.js';
import { ContactsModule } from '../contacts/contacts.module.js';
import { ConversationsModule } from '../conversations/conversations.module.js';
import { WebhooksModule } from '../webhooks/webhooks.module.js';
import { OutboundIvrFlowsModule } from '../outbound-ivr-flows/outbound-ivr-flows.module.js';
import { CallPlacer } from './call-placer.service.js';
import { CallReportsService } from './call-reports.service.js';
import { CallSweeper } from './call-sweeper.service.js';
import { CallTracker } from './call-tracker.service.js';
import { InboundCall } from './inbound-call.entity.js';
import { InboundCallsRepository } from './inbound-calls.repository.js';
import { OutboundIvrRequestEntity } from './outbound-ivr-request.entity.js';
import { OutboundIvrRequestsRepository } from './outbound-ivr-requests.repository.js';
import { OutboundIvrController } from './outbound-ivr.controller.js';
import { TwilioCallbacksController } from './twilio-callbacks.controller.js';
import { TwilioCallbacksService } from './twilio-callbacks.service.js';
import { OutboundIvrProcessor } from './outbound-ivr.processor.js';
import { OutboundIvrService } from './outbound-ivr.service.js';
import { SandboxVoiceProvider } from './providers/sandbox-voice.provider.js';
import { TwilioVoiceProvider } from './providers/twilio-voice.provider.js';
import { VoiceProviders } from './providers/voice-providers.js';
import { WhatsAppVoiceProvider } from './providers/whatsapp-voice.provider.js';
import { WhatsAppUserCalls } from './whatsapp-user-calls.service.js';
import { SandboxUserCallsAdminController } from './sandbox-user-calls-admin.controller.js';
import { WhatsAppCallsModule } from '../voice/whatsapp-calls/whatsapp-calls.module.js';
import { SpeechModule } from '../speech/speech.module.js';
import { SendPolicyModule } from '../send-policy/send-policy.module.js';
import { GovernorModule } from '../governor/governor.module.js';
import { StorageModule } from '../storage/storage.module.js';
import { CallRecordings } from './recording/call-recordings.service.js';
import { RecordingRetention } from './recording/recording-retention.service.js';
import { CallAnalyses } from './recording/call-analyses.service.js';
import { CallIntelligenceModule } from '../call-intelligence/call-intelligence.module.js';

@Module({
  imports: [
    TypeOrmModule.forFeature([OutboundIvrRequestEntity, InboundCall]),
    ChannelsModule,
    ContactsModule,
    ConversationsModule,
    WebhooksModule,
    OutboundIvrFlowsModule,
    SpeechModule,
    SendPolicyModule,
    GovernorModule,
    StorageModule,
    WhatsAppCallsModule,
    CallIntelligenceModule,
  ],
  controllers: [OutboundIvrController, TwilioCallbacksController, SandboxUserCallsAdminController],
  providers: [
    OutboundIvrRequestsRepository,
    InboundCallsRepository,
    OutboundIvrService,
    CallTracker,
    CallPlacer,
    CallReportsService,
    CallSweeper,
    TwilioCallbacksService,
    SandboxVoiceProvider,
    TwilioVoiceProvider,
    WhatsAppVoiceProvider,
    VoiceProviders,
    WhatsAppUserCalls,
    OutboundIvrProcessor,
    CallRecordings,
    RecordingRetention,
    CallAnalyses,
  ],
  exports: [OutboundIvrService, WhatsAppUserCalls],
})
export class OutboundIvrModule {}
