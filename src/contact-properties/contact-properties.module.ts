import { Module } from '@nestjs/common';
import { ContactPropertiesController } from './contact-properties.controller.js';
import { ContactPropertiesService } from './contact-properties.service.js';

@Module({
  controllers: [ContactPropertiesController],
  providers: [ContactPropertiesService],
  exports: [ContactPropertiesService],
})
export class ContactPropertiesModule {}
