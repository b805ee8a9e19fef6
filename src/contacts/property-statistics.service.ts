import { Injectable } from '@nestjs/common';
import { ContactPropertiesService } from '../contact-properties/contact-properties.service.js';
import type { ContactCriteria } from './contact-criteria.js';
import { ContactPropertyValuesRepository } from './contact-property-values.repository.js';
import { ContactsRepository } from './contacts.repository.js';
import { ContactsService } from './contacts.service.js';
import { ContactPropertyStatisticsDto } from './dto/property-statistics.dto.js';

/** Contact Properties Statistics over all the workspace's contacts, or those matching search filters. */
@Injectable()
export class PropertyStatisticsService {
  constructor(
    private readonly properties: ContactPropertiesService,
    private readonly contacts: ContactsService,
    private readonly contactRows: ContactsRepository,
    private readonly values: ContactPropertyValuesRepository,
  ) {}

  async compute(workspaceId: string, propertyId: string, criteria: ContactCriteria = {}): Promise<ContactPropertyStatisticsDto> {
    const definition = await this.properties.get(workspaceId, propertyId);
    const checked = await this.contacts.checkCriteria(workspaceId, { ...criteria, sorting: undefined });
    const statistics = await this.values.statistics(workspaceId, definition, this.contactRows.matchingIds(workspaceId, checked));
    return ContactPropertyStatisticsDto.from(definition, statistics);
  }
}
