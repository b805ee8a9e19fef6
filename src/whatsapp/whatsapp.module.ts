import { CallPermissionReplies } from './calls/call-permission-replies.service.js';
import { CallPermissionRequests } from './calls/call-permission-requests.service.js';
import { WhatsAppCallsModule } from '../voice/whatsapp-calls/whatsapp-calls.module.js';
import { OutboundIvrModule } from '../outbound-ivr/outbound-ivr.module.js';
import { Module, OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../config/app-config.js';
import { Retention } from '../queue/retention.service.js';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SandboxMessage } from './outbound/sandbox-message.entity.js';
import { SandboxMessagesRepository } from './outbound/sandbox-messages.repository.js';
import { SendClaim } from './outbound/send-claim.entity.js';
import { SEND_CLAIM_LEASE_MS, SendClaimsRepository } from './outbound/send-claims.repository.js';
import { WhatsAppTemplate } from './templates/whatsapp-template.entity.js';
import { WhatsAppTemplatesRepository } from './templates/whatsapp-templates.repository.js';
import { WhatsAppWebhooksService } from './inbound/whatsapp-webhooks.service.js';
import { WhatsAppIntakeRow } from './inbound/whatsapp-intake.entity.js';
import { WhatsAppIntakeRepository } from './inbound/whatsapp-intake.repository.js';
import { SandboxTiers } from './inbound/sandbox-tiers.service.js';
import { WhatsAppIntake } from './inbound/whatsapp-intake.service.js';
import { AdminKeyGuard } from '../admin/admin-key.guard.js';
import { ChannelsModule } from '../channels/channels.module.js';
import { ContactsModule } from '../contacts/contacts.module.js';
import { SendPolicyModule } from '../send-policy/send-policy.module.js';
import { GovernorModule } from '../governor/governor.module.js';
import { ConversationsModule } from '../conversations/conversations.module.js';
import { SendAcceptance } from './outbound/send-acceptance.service.js';
import { SendDelivery } from './outbound/send-delivery.service.js';
import { TemplateBatchSender } from './outbound/template-batch.service.js';
import { InboundService } from './inbound/inbound.service.js';
import { MessageChangesService } from './inbound/message-changes.service.js';
import { InboundMediaService } from './inbound/inbound-media.service.js';
import { WhatsAppContactsService } from './inbound/whatsapp-contacts.service.js';
import { StorageModule } from '../storage/storage.module.js';
import { StatusService } from './outbound/status.service.js';
import { WhatsAppWebhooksController } from './inbound/whatsapp-webhooks.controller.js';
import { WebhooksModule } from '../webhooks/webhooks.module.js';
import { CloudApiWhatsAppProvider } from './providers/cloud-api.provider.js';
import { SandboxWhatsAppProvider } from './providers/sandbox.provider.js';
import { TemplatesService } from './templates/templates.service.js';
import { WhatsAppAdminController } from './templates/whatsapp-admin.controller.js';
import { WhatsAppTemplatesController } from './templates/whatsapp-templates.controller.js';
import { WhatsAppController } from './whatsapp.controller.js';
import { WhatsAppProcessor } from './whatsapp.processor.js';
import { WhatsAppMediaUpload } from './outbound/whatsapp-media-upload.entity.js';
import { WhatsAppMediaUploadsRepository } from './outbound/whatsapp-media-uploads.repository.js';
import { WhatsAppMediaService } from './outbound/whatsapp-media.service.js';
import { MediaModule } from '../media/media.module.js';
import { WhatsAppAccountModule } from './account/account.module.js';

@Module({
  imports: [
    TypeOrmModule.forFeature([WhatsAppTemplate, SandboxMessage, WhatsAppMediaUpload, WhatsAppIntakeRow, SendClaim]),
    ChannelsModule,
    ContactsModule,
    SendPolicyModule,
    GovernorModule,
    ConversationsModule,
    WebhooksModule,
    StorageModule,
    MediaModule,
    WhatsAppAccountModule,
    WhatsAppCallsModule,
    OutboundIvrModule,
  ],
  controllers: [WhatsAppController, WhatsAppTemplatesController, WhatsAppAdminController, WhatsAppWebhooksController],
  providers: [
    SendAcceptance,
    SendDelivery,
    TemplateBatchSender,
    InboundService,
    MessageChangesService,
    InboundMediaService,
    WhatsAppContactsService,
    StatusService,
    TemplatesService,
    WhatsAppWebhooksService,
    WhatsAppIntake,
    SandboxTiers,
    WhatsAppIntakeRepository,
    WhatsAppTemplatesRepository,
    SandboxMessagesRepository,
    SendClaimsRepository,
    WhatsAppMediaUploadsRepository,
    WhatsAppMediaService,
    SandboxWhatsAppProvider,
    CloudApiWhatsAppProvider,
    WhatsAppProcessor,
    CallPermissionRequests,
    CallPermissionReplies,
    AdminKeyGuard,
  ],
  exports: [TemplatesService, SendAcceptance, TemplateBatchSender, WhatsAppAccountModule],
})
export class WhatsAppModule implements OnModuleInit {
  constructor(
    private readonly retention: Retention,
    private readonly sandboxMessages: SandboxMessagesRepository,
    private readonly sendClaims: SendClaimsRepository,
    private readonly config: AppConfig,
  ) {}

  /**
   * What sandbox channels "sent" is kept SANDBOX_MESSAGE_RETENTION; the claim of a send, once its
   * message has left Pending, for the claim's lease (it is of no use after: every run reads the
   * status with the claim).
   */
  onModuleInit(): void {
    this.retention.register({
      table: 'whatsapp_sandbox_messages',
      keepMs: this.config.retention.sandboxMessagesMs,
      deleteBatch: (cutoff, limit) => this.sandboxMessages.deleteUnscopedBefore(cutoff, limit),
    });
    this.retention.register({
      table: 'send_claims',
      keepMs: SEND_CLAIM_LEASE_MS,
      deleteBatch: (cutoff, limit) => this.sendClaims.deleteSettledUnscopedBefore(cutoff, limit),
    });
  }
}
