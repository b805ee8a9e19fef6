import { Module } from '@nestjs/common';
import { ChannelsModule } from '../channels/channels.module.js';
import { ContactsModule } from '../contacts/contacts.module.js';
import { ConversationsModule } from '../conversations/conversations.module.js';
import { WebhooksModule } from '../webhooks/webhooks.module.js';
import { OutboundIvrFlowsModule } from '../outbound-ivr-flows/outbound-ivr-flows.module.js';
import { CallPlacer } from './call-placer.service.js';
import { CallReportsService } from './call-reports.service.js';
import { CallSweeper } from './call-sweeper.service.js';
import { CallTracker } from './call-tracker.service.js';
import { OutboundIvrController } from './outbound-ivr.controller.js';
import { TwilioCallbacksController } from './twilio-callbacks.controller.js';
import { TwilioCallbacksService } from './twilio-callbacks.service.js';
import { OutboundIvrProcessor } from './outbound-ivr.processor.js';
import { OutboundIvrService } from './outbound-ivr.service.js';
import { SandboxVoiceProvider } from './providers/sandbox-voice.provider.js';
import { TwilioVoiceProvider } from './providers/twilio-voice.provider.js';
import { SpeechModule } from '../speech/speech.module.js';

@Module({
  imports: [ChannelsModule, ContactsModule, ConversationsModule, WebhooksModule, OutboundIvrFlowsModule, SpeechModule],
  controllers: [OutboundIvrController, TwilioCallbacksController],
  providers: [
    OutboundIvrService,
    CallTracker,
    CallPlacer,
    CallReportsService,
    CallSweeper,
    TwilioCallbacksService,
    SandboxVoiceProvider,
    TwilioVoiceProvider,
    OutboundIvrProcessor,
  ],
})
export class OutboundIvrModule {}
