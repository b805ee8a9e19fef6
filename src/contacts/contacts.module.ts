import { Module } from '@nestjs/common';
import { ContactPropertiesModule } from '../contact-properties/contact-properties.module.js';
import { TagsModule } from '../tags/tags.module.js';
import { ContactViews } from './contact-views.js';
import { ContactsController } from './contacts.controller.js';
import { ContactsService } from './contacts.service.js';
import { ContactImportService } from './contact-import.service.js';
import { PropertyStatisticsController } from './property-statistics.controller.js';
import { PropertyStatisticsService } from './property-statistics.service.js';

@Module({
  imports: [ContactPropertiesModule, TagsModule],
  controllers: [ContactsController, PropertyStatisticsController],
  providers: [ContactsService, ContactViews, ContactImportService, PropertyStatisticsService],
  exports: [ContactsService, ContactViews],
})
export class ContactsModule {}
