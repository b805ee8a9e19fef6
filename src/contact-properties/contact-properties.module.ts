import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ContactPropertiesController } from './contact-properties.controller.js';
import { ContactPropertiesService } from './contact-properties.service.js';
import { ContactPropertyDefinition } from './contact-property-definition.entity.js';
import { ContactPropertyDefinitionsRepository } from './contact-property-definitions.repository.js';

@Module({
  imports: [TypeOrmModule.forFeature([ContactPropertyDefinition])],
  controllers: [ContactPropertiesController],
  providers: [ContactPropertiesService, ContactPropertyDefinitionsRepository],
  exports: [ContactPropertiesService],
})
export class ContactPropertiesModule {}
