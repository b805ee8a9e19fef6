import { Injectable } from '@nestjs/common';
import { DataSource, In } from 'typeorm';
import { ContactPropertyDefinition } from '../contact-properties/contact-property-definition.entity.js';
import { formatTimestamp, TimestampFormat } from '../common/time/timestamp-format.js';
import type { Contact } from './contact.entity.js';
import { ContactNote } from './contact-note.entity.js';
import { ContactPropertyValue } from './contact-property-value.entity.js';
import type { ContactCustomPropertyDto, ContactDto, ContactNoteDto } from './dto/contact.dto.js';

/**
 * Turns contacts into the specification's Contact: three queries for any number of contacts
 * (their property values with their definitions, and their notes), never one per contact.
 */
@Injectable()
export class ContactViews {
  constructor(private readonly dataSource: DataSource) {}

  async one(contact: Contact): Promise<ContactDto> {
    return (await this.many([contact]))[0];
  }

  async many(contacts: Contact[]): Promise<ContactDto[]> {
    if (contacts.length === 0) return [];
    const workspaceId = contacts[0].workspaceId;
    const ids = contacts.map((c) => c.id);
    const [values, notes, definitions] = await Promise.all([
      this.dataSource.getRepository(ContactPropertyValue).find({ where: { workspaceId, contactId: In(ids) } }),
      this.dataSource
        .getRepository(ContactNote)
        .find({ where: { workspaceId, contactId: In(ids) }, order: { creationTime: 'ASC', id: 'ASC' } }),
      this.dataSource.getRepository(ContactPropertyDefinition).find({ where: { workspaceId } }),
    ]);
    const order = new Map(definitions.map((d) => [d.id, d]));
    const valuesByContact = groupBy(values, (v) => v.contactId);
    const notesByContact = groupBy(notes, (n) => n.contactId);
    return contacts.map((contact) => ({
      id: contact.id,
      workspaceId: contact.workspaceId,
      name: contact.name,
      phoneNumber: contact.phoneNumber,
      contactType: contact.contactType,
      email: contact.email,
      company: contact.company,
      position: contact.position,
      customFields: contact.customFields,
      notes: (notesByContact.get(contact.id) ?? []).map(toNoteDto),
      customProperties: (valuesByContact.get(contact.id) ?? [])
        .filter((v) => order.has(v.propertyDefinitionId))
        .sort(
          (a, b) => order.get(a.propertyDefinitionId)!.creationTime.getTime() - order.get(b.propertyDefinitionId)!.creationTime.getTime(),
        )
        .map((v) => toCustomPropertyDto(v, order.get(v.propertyDefinitionId)!)),
      lastModificationTime: TimestampFormat.noOffset(contact.lastModificationTime),
      lastModifierId: contact.lastModifierId,
      creationTime: TimestampFormat.noOffset(contact.creationTime),
      creatorId: contact.creatorId,
    }));
  }
}

function toCustomPropertyDto(value: ContactPropertyValue, definition: ContactPropertyDefinition): ContactCustomPropertyDto {
  return {
    propertyDefinitionId: definition.id,
    propertyName: definition.name,
    propertyType: definition.type,
    textValue: value.textValue,
    numberValue: value.numberValue === null ? null : Number(value.numberValue),
    dateValue: formatTimestamp(value.dateValue, TimestampFormat.noOffset),
    selectValue: value.selectValue,
  };
}

function toNoteDto(note: ContactNote): ContactNoteDto {
  return {
    id: note.id,
    contactId: note.contactId,
    text: note.text,
    creatorName: note.creatorName,
    creationTime: TimestampFormat.noOffset(note.creationTime),
    creatorId: note.creatorId,
    lastModificationTime: TimestampFormat.noOffset(note.lastModificationTime),
    lastModifierId: note.lastModifierId,
  };
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
