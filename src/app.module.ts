import { Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LoggerModule } from 'nestjs-pino';
import { AdminModule } from './admin/admin.module.js';
import { AuthModule } from './auth/auth.module.js';
import { JwtAuthGuard } from './auth/jwt-auth.guard.js';
import { ChannelsModule } from './channels/channels.module.js';
import { CommonModule } from './common/common.module.js';
import { ErrorEnvelopeFilter } from './common/errors/error-envelope.filter.js';
import { IdempotencyModule } from './common/idempotency/idempotency.module.js';
import { AppConfig } from './config/app-config.js';
import { AppConfigModule } from './config/config.module.js';
import { typeormOptions } from './database/typeorm-options.js';
import { transactionsModule } from './database/transactions.js';
import { HealthModule } from './health/health.module.js';
import { loggerOptions } from './logging/logger-options.js';
import { LOG_DESTINATION } from './logging/log-destination.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { QueueModule } from './queue/queue.module.js';
import { RateLimitGuard } from './rate-limiting/rate-limit.guard.js';
import { RateLimitingModule } from './rate-limiting/rate-limiting.module.js';
import { WorkspacesModule } from './workspaces/workspaces.module.js';
import { WebhooksModule } from './webhooks/webhooks.module.js';
import { ContactPropertiesModule } from './contact-properties/contact-properties.module.js';
import { ContactsModule } from './contacts/contacts.module.js';
import { TagsModule } from './tags/tags.module.js';
import { ConversationsModule } from './conversations/conversations.module.js';
import { WhatsAppModule } from './whatsapp/whatsapp.module.js';
import { OutboundIvrFlowsModule } from './outbound-ivr-flows/outbound-ivr-flows.module.js';
import { DemoSeedModule } from './database/demo-seed.module.js';
import { StorageModule } from './storage/storage.module.js';
import { SupportModule } from './support/support.module.js';
import { SpeechModule } from './speech/speech.module.js';
import { OutboundIvrModule } from './outbound-ivr/outbound-ivr.module.js';
import { SendPolicyModule } from './send-policy/send-policy.module.js';
import { CallIntelligenceModule } from './call-intelligence/call-intelligence.module.js';
import { GovernorModule } from './governor/governor.module.js';
import { ScheduledModule } from './scheduled/scheduled.module.js';
import { CampaignsModule } from './campaigns/campaigns.module.js';
import { WhatsAppCallsModule } from './voice/whatsapp-calls/whatsapp-calls.module.js';
import { CallingSettingsModule } from './voice/whatsapp-calls/calling-settings.module.js';

@Module({
  imports: [
    AppConfigModule,
    LoggerModule.forRootAsync({ inject: [AppConfig, { token: LOG_DESTINATION, optional: true }], useFactory: loggerOptions }),
    TypeOrmModule.forRootAsync({
      inject: [AppConfig],
      // Migrations ran before the app was created (createApp), under a lock.
      useFactory: (config: AppConfig) => typeormOptions(config.database.url, config.database.poolSize),
    }),
    // Ambient transactions: services mark methods @Transactional(); repositories join them.
    transactionsModule(),
    CommonModule,
    MetricsModule,
    QueueModule,
    RateLimitingModule,
    IdempotencyModule,
    AuthModule,
    AdminModule,
    WorkspacesModule,
    ChannelsModule,
    WebhooksModule,
    ContactPropertiesModule,
    ContactsModule,
    TagsModule,
    SendPolicyModule,
    CallIntelligenceModule,
    GovernorModule,
    ScheduledModule,
    ConversationsModule,
    WhatsAppModule,
    CampaignsModule,
    StorageModule,
    SupportModule,
    SpeechModule,
    OutboundIvrFlowsModule,
    OutboundIvrModule,
    WhatsAppCallsModule,
    CallingSettingsModule,
    HealthModule,
    DemoSeedModule,
  ],
  providers: [
    { provide: APP_FILTER, useClass: ErrorEnvelopeFilter },
    // Order matters: authenticate first, then count the request against the workspace's limits.
    { provide: APP_GUARD, useExisting: JwtAuthGuard },
    { provide: APP_GUARD, useExisting: RateLimitGuard },
  ],
})
export class AppModule {}
