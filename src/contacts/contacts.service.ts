import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { Actor, Principal } from '../auth/principal.js';
import { ContactPropertiesService } from '../contact-properties/contact-properties.service.js';
import type { ContactPropertyDefinition } from '../contact-properties/contact-property-definition.entity.js';
import { newId } from '../common/id.js';
import type { PagedRequestDto } from '../common/paging/paged-request.dto.js';
import type { PagedResult } from '../common/paging/paged-result.js';
import { pgError } from '../database/pg-errors.js';
import { TagsService } from '../tags/tags.service.js';
import { propertyConditions, type CheckedContactCriteria, type ContactCriteria } from './contact-criteria.js';
import type { ContactHistoryEntry } from './contact-history-entry.entity.js';
import { ContactHistoryRepository } from './contact-history.repository.js';
import { builtInChanges, type HistoryChange } from './contact-history.js';
import { ContactNotesRepository } from './contact-notes.repository.js';
import { ContactPropertyValuesRepository } from './contact-property-values.repository.js';
import { type Contact, ContactType } from './contact.entity.js';
import { ContactsRepository } from './contacts.repository.js';
import { ContactNotFound, PhoneNumberTaken, PropertyRequired, ValueMissing } from './contacts.errors.js';
import type { CreateContactDto, UpdateContactDto } from './dto/contact.dto.js';
import { sameValue, toTypedValue, valueAsString, type TypedValue } from './property-value.js';

/** Contacts of a workspace, their custom property values and their audit trail. */
@Injectable()
export class ContactsService {
  constructor(
    private readonly contacts: ContactsRepository,
    private readonly values: ContactPropertyValuesRepository,
    private readonly historyEntries: ContactHistoryRepository,
    private readonly notes: ContactNotesRepository,
    private readonly properties: ContactPropertiesService,
    private readonly tags: TagsService,
  ) {}

  async get(workspaceId: string, id: string): Promise<Contact> {
    return this.getWith(this.contacts, workspaceId, id);
  }

  /** The workspace's contacts with these ids (those that exist), for other modules' views. */
  findByIds(workspaceId: string, ids: readonly string[]): Promise<Contact[]> {
    return this.contacts.findByIds(workspaceId, ids);
  }

  async create(principal: Principal, input: CreateContactDto): Promise<Contact> {
    return this.writeUnique(input.phoneNumber, (manager) => this.insert(manager, principal, input));
  }

  /**
   * The workspace's contact with this number, created (name = `name` or the number) when there is
   * none, in the caller's transaction. Safe under concurrency: a contact created meanwhile by
   * another request is found, not duplicated.
   */
  async findOrCreateByPhone(manager: EntityManager, principal: Actor, phoneNumber: string, name?: string): Promise<Contact> {
    const contacts = this.contacts.withManager(manager);
    const existing = await contacts.findByPhone(principal.workspaceId, phoneNumber);
    if (existing) return existing;
    const id = await this.createByPhone(manager, principal, phoneNumber, name);
    return (await contacts.findById(principal.workspaceId, id))!;
  }

  /** {@link findOrCreateByPhone} for callers that need only the id: no read-back of a new contact. */
  async idByPhone(manager: EntityManager, principal: Actor, phoneNumber: string): Promise<string> {
    const existing = await this.contacts.withManager(manager).findIdByPhone(principal.workspaceId, phoneNumber);
    return existing ?? this.createByPhone(manager, principal, phoneNumber);
  }

  async update(principal: Principal, id: string, input: UpdateContactDto): Promise<Contact> {
    const workspaceId = principal.workspaceId;
    return this.writeUnique(input.phoneNumber, async (manager) => {
      const contacts = this.contacts.withManager(manager);
      const contact = await this.getWith(contacts, workspaceId, id, { lock: true });
      const before = { ...contact };
      for (const field of ['name', 'phoneNumber', 'email', 'company', 'position', 'contactType', 'customFields'] as const) {
        if (input[field] !== undefined) (contact as unknown as Record<string, unknown>)[field] = input[field];
      }
      const changes = builtInChanges(before, contact);
      const customFieldsChanged = JSON.stringify(before.customFields) !== JSON.stringify(contact.customFields);
      if (changes.length > 0 || customFieldsChanged || input.note) {
        contact.lastModifierId = principal.serviceAccountId;
        contact.lastModificationTime = new Date();
        await contacts.save(workspaceId, contact);
        await this.recordHistory(manager, contact, principal, changes);
        if (input.note) await this.addNote(manager, contact, principal, input.note);
      }
      return (await contacts.findById(workspaceId, id))!;
    });
  }

  async remove(workspaceId: string, id: string): Promise<void> {
    if ((await this.contacts.delete(workspaceId, { id })) === 0) throw ContactNotFound(id);
  }

  /**
   * Set Property Value on Contact, rules 1-6 of the specification: update in place or add; null
   * removes the entry; required + null and a foreign select option fail with the specification's
   * messages; every actual change (and only that) goes to the audit trail, in the same transaction.
   * The contact row is locked, so concurrent sets on one contact apply one after the other.
   */
  async setPropertyValue(principal: Principal, contactId: string, propertyId: string, raw: unknown): Promise<Contact> {
    return this.contacts.transaction(async (manager) => {
      const definition = await this.properties.getInTransaction(manager, principal.workspaceId, propertyId);
      const contact = await this.getWith(this.contacts.withManager(manager), principal.workspaceId, contactId, { lock: true });
      if (raw === undefined) throw ValueMissing();
      if (raw === null) {
        if (definition.isRequired) throw PropertyRequired(definition.name);
        await this.applyValue(manager, principal, contact, definition, null);
      } else {
        await this.applyValue(manager, principal, contact, definition, toTypedValue(definition, raw));
      }
      return contact; // applyValue kept its modification stamps in step with the row
    });
  }

  /** Get Contacts and Search Contacts: the criteria of API.md §5, one page, with the total. */
  async find(workspaceId: string, criteria: ContactCriteria, paging: PagedRequestDto): Promise<PagedResult<Contact>> {
    return this.contacts.page(workspaceId, await this.checkCriteria(workspaceId, criteria), paging);
  }

  /**
   * The criteria with their property filters checked against the definitions they name. A tag id
   * or a property id that is not one of the workspace's is a 404; an operator or value that does
   * not fit the property's type a 400.
   */
  async checkCriteria(workspaceId: string, criteria: ContactCriteria): Promise<CheckedContactCriteria> {
    const filters = criteria.customPropertyFilters ?? [];
    const [definitions] = await Promise.all([
      this.properties.getMany(
        workspaceId,
        filters.map((f) => f.propertyDefinitionId),
      ),
      this.tags.getMany(workspaceId, criteria.tagIds ?? []),
    ]);
    return {
      filter: criteria.filter,
      name: criteria.name,
      phoneNumber: criteria.phoneNumber,
      sorting: criteria.sorting,
      tagIds: criteria.tagIds,
      propertyConditions: propertyConditions(filters, definitions),
    };
  }

  async history(workspaceId: string, contactId: string, skip: number, take: number): Promise<PagedResult<ContactHistoryEntry>> {
    await this.get(workspaceId, contactId);
    return this.historyEntries.page(workspaceId, contactId, skip, take);
  }

  private async getWith(contacts: ContactsRepository, workspaceId: string, id: string, options: { lock?: boolean } = {}): Promise<Contact> {
    const contact = await contacts.findById(workspaceId, id, options);
    if (!contact) throw ContactNotFound(id);
    return contact;
  }

  /** Creates the contact with its history (one entry per filled built-in field) and optional note. */
  private async insert(manager: EntityManager, principal: Principal, input: CreateContactDto): Promise<Contact> {
    const contacts = this.contacts.withManager(manager);
    const contact = contacts.create(principal.workspaceId, {
      id: newId(),
      name: input.name,
      phoneNumber: input.phoneNumber,
      contactType: input.contactType ?? ContactType.Individual,
      email: input.email ?? null,
      company: input.company ?? null,
      position: input.position ?? null,
      customFields: input.customFields ?? null,
      creatorId: principal.serviceAccountId,
      lastModifierId: principal.serviceAccountId,
    });
    await contacts.insert(principal.workspaceId, contact);
    await this.recordHistory(manager, contact, principal, builtInChanges({}, contact));
    if (input.note) await this.addNote(manager, contact, principal, input.note);
    return (await contacts.findById(principal.workspaceId, contact.id))!;
  }

  /** Creates the contact with its history entry; returns its id, or the id of the one a concurrent request created. */
  private async createByPhone(manager: EntityManager, principal: Actor, phoneNumber: string, name?: string): Promise<string> {
    const contacts = this.contacts.withManager(manager);
    const contact = contacts.create(principal.workspaceId, {
      id: newId(),
      name: name?.trim() || phoneNumber,
      phoneNumber,
      contactType: ContactType.Individual,
      email: null,
      company: null,
      position: null,
      customFields: null,
      creatorId: principal.serviceAccountId,
      lastModifierId: principal.serviceAccountId,
    });
    if (!(await contacts.insertWhereNumberFree(principal.workspaceId, contact))) {
      return (await contacts.findIdByPhone(principal.workspaceId, phoneNumber))!;
    }
    await this.recordHistory(manager, contact, principal, builtInChanges({}, contact));
    return contact.id;
  }

  private async applyValue(
    manager: EntityManager,
    principal: Principal,
    contact: Contact,
    definition: ContactPropertyDefinition,
    next: TypedValue | null,
  ): Promise<void> {
    const values = this.values.withManager(manager);
    const existing = await values.findOf(contact.workspaceId, contact.id, definition.id);
    const previous: TypedValue | null = existing && {
      textValue: existing.textValue,
      numberValue: existing.numberValue,
      dateValue: existing.dateValue,
      selectValue: existing.selectValue,
    };
    if (sameValue(previous, next)) return; // re-setting the same value changes and records nothing
    if (next === null) {
      await values.delete(contact.workspaceId, { id: existing!.id });
    } else {
      await values.put(contact.workspaceId, contact.id, definition.id, next);
    }
    contact.lastModificationTime = new Date();
    contact.lastModifierId = principal.serviceAccountId;
    await this.contacts
      .withManager(manager)
      .update(
        contact.workspaceId,
        { id: contact.id },
        { lastModificationTime: contact.lastModificationTime, lastModifierId: contact.lastModifierId },
      );
    await this.recordHistory(manager, contact, principal, [
      {
        propertyName: definition.name,
        propertyDefinitionId: definition.id,
        oldValue: valueAsString(previous),
        newValue: valueAsString(next),
      },
    ]);
  }

  private async recordHistory(manager: EntityManager, contact: Contact, actor: Actor, changes: HistoryChange[]): Promise<void> {
    await this.historyEntries.withManager(manager).record(contact.workspaceId, contact.id, actor.serviceAccountId, changes);
  }

  private async addNote(manager: EntityManager, contact: Contact, principal: Principal, text: string): Promise<void> {
    await this.notes.withManager(manager).add(contact.workspaceId, contact.id, {
      text,
      creatorName: principal.name ?? null,
      creatorId: principal.serviceAccountId,
    });
  }

  /** Runs `work` in a transaction; a duplicate phone number in the workspace is a 409. */
  private async writeUnique<T>(phoneNumber: string | undefined, work: (manager: EntityManager) => Promise<T>): Promise<T> {
    try {
      return await this.contacts.transaction(work);
    } catch (err) {
      if (pgError.is(err, 'unique')) throw PhoneNumberTaken(phoneNumber ?? '');
      throw err;
    }
  }
}
