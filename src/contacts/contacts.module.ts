import { Module } from '@nestjs/common';
import { ContactPropertiesModule } from '../contact-properties/contact-properties.module.js';
import { ContactViews } from './contact-views.js';
import { ContactsController } from './contacts.controller.js';
import { ContactsService } from './contacts.service.js';

@Module({
  imports: [ContactPropertiesModule],
  controllers: [ContactsController],
  providers: [ContactsService, ContactViews],
  exports: [ContactsService, ContactViews],
})
export class ContactsModule {}
