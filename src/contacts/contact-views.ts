import { Injectable } from '@nestjs/common';
import { ContactPropertiesService } from '../contact-properties/contact-properties.service.js';
import type { PagedResult } from '../common/paging/paged-result.js';
import { readAll } from '../database/read-all.js';
import { ContactNotesRepository } from './contact-notes.repository.js';
import { ContactPropertyValuesRepository } from './contact-property-values.repository.js';
import type { Contact } from './contact.entity.js';
import { ContactDto } from './dto/contact.dto.js';

/**
 * Turns contacts into the specification's Contact: three queries for any number of contacts
 * (their property values, their notes, and the workspace's property definitions), never one per contact.
 */
@Injectable()
export class ContactViews {
  constructor(
    private readonly values: ContactPropertyValuesRepository,
    private readonly notes: ContactNotesRepository,
    private readonly properties: ContactPropertiesService,
  ) {}

  async one(contact: Contact): Promise<ContactDto> {
    return (await this.many([contact]))[0];
  }

  async page(page: PagedResult<Contact>): Promise<PagedResult<ContactDto>> {
    return { totalCount: page.totalCount, items: await this.many(page.items) };
  }

  async many(contacts: Contact[]): Promise<ContactDto[]> {
    if (contacts.length === 0) return [];
    const workspaceId = contacts[0].workspaceId;
    const ids = contacts.map((c) => c.id);
    const [values, notes, definitions] = await readAll([
      () => this.values.ofContacts(workspaceId, ids),
      () => this.notes.ofContacts(workspaceId, ids),
      () => this.properties.list(workspaceId),
    ]);
    const definitionById = new Map(definitions.map((d) => [d.id, d]));
    const valuesByContact = groupBy(values, (v) => v.contactId);
    const notesByContact = groupBy(notes, (n) => n.contactId);
    return contacts.map((contact) =>
      ContactDto.from(contact, {
        notes: notesByContact.get(contact.id) ?? [],
        // In the order the properties were defined.
        customProperties: (valuesByContact.get(contact.id) ?? [])
          .flatMap((value) => {
            const definition = definitionById.get(value.propertyDefinitionId);
            return definition ? [{ value, definition }] : [];
          })
          .sort((a, b) => a.definition.creationTime.getTime() - b.definition.creationTime.getTime()),
      }),
    );
  }
}

function groupBy<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}
