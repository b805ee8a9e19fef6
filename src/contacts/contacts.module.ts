import { WhatsAppCallPermission } from './whatsapp-call-permission.entity.js';
import { WhatsAppCallPermissionsRepository } from './whatsapp-call-permissions.repository.js';
import { WhatsAppCallPermissions } from './whatsapp-call-permissions.service.js';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ContactPropertiesModule } from '../contact-properties/contact-properties.module.js';
import { TagsModule } from '../tags/tags.module.js';
import { ContactCountShard } from './contact-count.entity.js';
import { ContactHistoryEntry } from './contact-history-entry.entity.js';
import { ContactHistoryRepository } from './contact-history.repository.js';
import { ContactImportService } from './contact-import.service.js';
import { ContactNote } from './contact-note.entity.js';
import { ContactNotesRepository } from './contact-notes.repository.js';
import { ContactPropertyValue } from './contact-property-value.entity.js';
import { ContactPropertyValuesRepository } from './contact-property-values.repository.js';
import { ContactViews } from './contact-views.js';
import { Contact } from './contact.entity.js';
import { WebhooksModule } from '../webhooks/webhooks.module.js';
import { ContactsController } from './contacts.controller.js';
import { ContactsRepository } from './contacts.repository.js';
import { ContactsService } from './contacts.service.js';
import { ContactChanges } from './contact-changes.service.js';
import { ContactConsent } from './contact-consent.service.js';
import { ContactIdentity } from './contact-identity.service.js';
import { ContactPropertyValues } from './contact-property-values.service.js';
import { PropertyStatisticsController } from './property-statistics.controller.js';
import { PropertyStatisticsService } from './property-statistics.service.js';

@Module({
  imports: [
    TypeOrmModule.forFeature([Contact, ContactCountShard, ContactHistoryEntry, ContactNote, ContactPropertyValue, WhatsAppCallPermission]),
    ContactPropertiesModule,
    TagsModule,
    WebhooksModule,
  ],
  controllers: [ContactsController, PropertyStatisticsController],
  providers: [
    WhatsAppCallPermissionsRepository,
    WhatsAppCallPermissions,
    ContactsService,
    ContactChanges,
    ContactConsent,
    ContactIdentity,
    ContactPropertyValues,
    ContactViews,
    ContactImportService,
    PropertyStatisticsService,
    ContactsRepository,
    ContactPropertyValuesRepository,
    ContactHistoryRepository,
    ContactNotesRepository,
  ],
  exports: [ContactsService, ContactConsent, ContactIdentity, ContactPropertyValues, ContactViews, WhatsAppCallPermissions],
})
export class ContactsModule {}
