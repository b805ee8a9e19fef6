import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager, In, Repository } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity.js';
import type { Actor, Principal } from '../auth/principal.js';
import { ContactPropertiesService } from '../contact-properties/contact-properties.service.js';
import { TagsService } from '../tags/tags.service.js';
import type { ContactPropertyDefinition } from '../contact-properties/contact-property-definition.entity.js';
import { newId } from '../common/id.js';
import type { PagedResult } from '../common/paging/paged-result.js';
import { pageWithTotal } from '../common/paging/page-with-total.js';
import { isUniqueViolation } from '../database/pg-errors.js';
import { ContactHistoryEntry } from './contact-history-entry.entity.js';
import { ContactNote } from './contact-note.entity.js';
import { ContactPropertyValue } from './contact-property-value.entity.js';
import { Contact, ContactType } from './contact.entity.js';
import { ContactNotFound, PhoneNumberTaken, PropertyRequired, ValueMissing } from './contacts.errors.js';
import type { CreateContactDto, UpdateContactDto } from './dto/contact.dto.js';
import { sameValue, toTypedValue, valueAsString, type TypedValue } from './property-value.js';
import { applyContactCriteria, hasCriteria, type ContactCriteria } from './contact-query.js';
import { builtInChanges, type HistoryChange } from './contact-history.js';

/** Contacts of a workspace, their custom property values and their audit trail. */
@Injectable()
export class ContactsService {
  private readonly contacts: Repository<Contact>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly properties: ContactPropertiesService,
    private readonly tags: TagsService,
  ) {
    this.contacts = dataSource.getRepository(Contact);
  }

  async get(workspaceId: string, id: string, manager?: EntityManager, lock = false): Promise<Contact> {
    const contact = await (manager ?? this.dataSource.manager).findOne(Contact, {
      where: { id, workspaceId },
      ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    if (!contact) throw ContactNotFound(id);
    return contact;
  }

  /** The workspace's contacts with these ids (those that exist), for other modules' views. */
  findByIds(workspaceId: string, ids: readonly string[]): Promise<Contact[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.contacts.find({ where: { workspaceId, id: In([...ids]) } });
  }

  async create(principal: Principal, input: CreateContactDto): Promise<Contact> {
    return this.writeUnique(input.phoneNumber, (manager) => this.insert(manager, principal, input));
  }

  /** Creates the contact with its history (one entry per filled built-in field) and optional note. */
  async insert(manager: EntityManager, principal: Principal, input: CreateContactDto): Promise<Contact> {
    const contact = manager.create(Contact, {
      id: newId(),
      workspaceId: principal.workspaceId,
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
    await manager.insert(Contact, contact as QueryDeepPartialEntity<Contact>);
    await this.recordHistory(manager, contact, principal, builtInChanges({}, contact));
    if (input.note) await this.addNote(manager, contact, principal, input.note);
    return manager.findOneByOrFail(Contact, { id: contact.id });
  }

  /**
   * The workspace's contact with this number, created (name = `name` or the number) when there is
   * none. Safe under concurrency: a contact created meanwhile by another request is found, not duplicated.
   */
  async findOrCreateByPhone(manager: EntityManager, principal: Actor, phoneNumber: string, name?: string): Promise<Contact> {
    const existing = await manager.findOne(Contact, { where: { workspaceId: principal.workspaceId, phoneNumber } });
    if (existing) return existing;
    return manager.findOneByOrFail(Contact, { id: await this.createByPhone(manager, principal, phoneNumber, name) });
  }

  /** {@link findOrCreateByPhone} for callers that need only the id: no read-back of a new contact. */
  async idByPhone(manager: EntityManager, principal: Actor, phoneNumber: string): Promise<string> {
    const existing = await manager.findOne(Contact, { where: { workspaceId: principal.workspaceId, phoneNumber }, select: { id: true } });
    return existing?.id ?? this.createByPhone(manager, principal, phoneNumber);
  }

  /** Creates the contact with its history entry; returns its id, or the id of the one a concurrent request created. */
  private async createByPhone(manager: EntityManager, principal: Actor, phoneNumber: string, name?: string): Promise<string> {
    const contact = manager.create(Contact, {
      id: newId(),
      workspaceId: principal.workspaceId,
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
    const inserted = await manager
      .createQueryBuilder()
      .insert()
      .into(Contact)
      .values(contact as QueryDeepPartialEntity<Contact>)
      .orIgnore()
      .returning(['id'])
      .execute();
    if ((inserted.raw as unknown[]).length === 0) {
      return (await manager.findOneOrFail(Contact, { where: { workspaceId: principal.workspaceId, phoneNumber }, select: { id: true } }))
        .id;
    }
    await this.recordHistory(manager, contact, principal, builtInChanges({}, contact));
    return contact.id;
  }

  async update(principal: Principal, id: string, input: UpdateContactDto): Promise<Contact> {
    return this.writeUnique(input.phoneNumber, async (manager) => {
      const contact = await this.get(principal.workspaceId, id, manager, true);
      const before = { ...contact };
      for (const field of ['name', 'phoneNumber', 'email', 'company', 'position', 'contactType', 'customFields'] as const) {
        if (input[field] !== undefined) (contact as unknown as Record<string, unknown>)[field] = input[field];
      }
      const changes = builtInChanges(before, contact);
      const customFieldsChanged = JSON.stringify(before.customFields) !== JSON.stringify(contact.customFields);
      if (changes.length > 0 || customFieldsChanged || input.note) {
        contact.lastModifierId = principal.serviceAccountId;
        contact.lastModificationTime = new Date();
        await manager.save(Contact, contact);
        await this.recordHistory(manager, contact, principal, changes);
        if (input.note) await this.addNote(manager, contact, principal, input.note);
      }
      return manager.findOneByOrFail(Contact, { id });
    });
  }

  async remove(workspaceId: string, id: string): Promise<void> {
    const result = await this.contacts.delete({ id, workspaceId });
    if (!result.affected) throw ContactNotFound(id);
  }

  /**
   * Set Property Value on Contact, rules 1-6 of the specification: update in place or add; null
   * removes the entry; required + null and a foreign select option fail with the specification's
   * messages; every actual change (and only that) goes to the audit trail, in the same transaction.
   * The contact row is locked, so concurrent sets on one contact apply one after the other.
   */
  async setPropertyValue(principal: Principal, contactId: string, propertyId: string, raw: unknown): Promise<Contact> {
    return this.dataSource.transaction(async (manager) => {
      const definition = await this.properties.get(principal.workspaceId, propertyId, manager);
      const contact = await this.get(principal.workspaceId, contactId, manager, true);
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
  async find(
    workspaceId: string,
    criteria: ContactCriteria,
    paging: { skipCount: number; maxResultCount: number },
  ): Promise<PagedResult<Contact>> {
    const definitions = await this.criteriaDefinitions(workspaceId, criteria);
    const qb = applyContactCriteria(
      this.contacts.createQueryBuilder('c').where('c.workspace_id = :workspaceId', { workspaceId }),
      criteria,
      definitions,
    );
    if (hasCriteria(criteria)) return pageWithTotal(qb, paging.skipCount, paging.maxResultCount);
    // No criteria: the total is the workspace's maintained count, not a count of a million rows.
    const [items, totalCount] = await Promise.all([
      qb.skip(paging.skipCount).take(paging.maxResultCount).getMany(),
      this.workspaceContactCount(workspaceId),
    ]);
    return { totalCount, items };
  }

  /**
   * The property definitions the criteria's filters name, for {@link applyContactCriteria}. A tag id
   * that is not one of the workspace's is a 404 here (a property id, where the filter is applied).
   */
  async criteriaDefinitions(workspaceId: string, criteria: ContactCriteria): Promise<Map<string, ContactPropertyDefinition>> {
    const definitionIds = (criteria.customPropertyFilters ?? []).map((f) => f.propertyDefinitionId);
    const [definitions] = await Promise.all([
      this.properties.getMany(workspaceId, definitionIds),
      this.tags.getMany(workspaceId, criteria.tagIds ?? []),
    ]);
    return definitions;
  }

  private async workspaceContactCount(workspaceId: string): Promise<number> {
    const [row] = (await this.dataSource.query('SELECT coalesce(sum(total), 0)::int AS total FROM contact_counts WHERE workspace_id = $1', [
      workspaceId,
    ])) as Array<{
      total: number;
    }>;
    return row.total;
  }

  async history(workspaceId: string, contactId: string, skip: number, take: number): Promise<PagedResult<ContactHistoryEntry>> {
    await this.get(workspaceId, contactId);
    const [items, totalCount] = await this.dataSource.getRepository(ContactHistoryEntry).findAndCount({
      where: { workspaceId, contactId },
      order: { creationTime: 'DESC', id: 'DESC' },
      skip,
      take,
    });
    return { totalCount, items };
  }

  private async applyValue(
    manager: EntityManager,
    principal: Principal,
    contact: Contact,
    definition: ContactPropertyDefinition,
    next: TypedValue | null,
  ): Promise<void> {
    const values = manager.getRepository(ContactPropertyValue);
    const existing = await values.findOne({ where: { contactId: contact.id, propertyDefinitionId: definition.id } });
    const previous: TypedValue | null = existing && {
      textValue: existing.textValue,
      numberValue: existing.numberValue,
      dateValue: existing.dateValue,
      selectValue: existing.selectValue,
    };
    if (sameValue(previous, next)) return; // re-setting the same value changes and records nothing
    if (next === null) {
      await values.delete({ id: existing!.id });
    } else {
      await manager
        .createQueryBuilder()
        .insert()
        .into(ContactPropertyValue)
        .values({ id: newId(), workspaceId: contact.workspaceId, contactId: contact.id, propertyDefinitionId: definition.id, ...next })
        .orUpdate(['text_value', 'number_value', 'date_value', 'select_value'], ['contact_id', 'property_definition_id'])
        .execute();
    }
    contact.lastModificationTime = new Date();
    contact.lastModifierId = principal.serviceAccountId;
    await manager.update(
      Contact,
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

  private async recordHistory(manager: EntityManager, contact: Contact, principal: Actor, changes: HistoryChange[]): Promise<void> {
    if (changes.length === 0) return;
    await manager.insert(
      ContactHistoryEntry,
      // Stamped here, after the contact's row lock, so the order of entries is the order of the changes
      // (now() would be the time each waiting transaction began).
      changes.map((change) => ({
        id: newId(),
        workspaceId: contact.workspaceId,
        contactId: contact.id,
        creatorId: principal.serviceAccountId,
        creationTime: new Date(),
        ...change,
      })),
    );
  }

  private async addNote(manager: EntityManager, contact: Contact, principal: Principal, text: string): Promise<void> {
    await manager.insert(ContactNote, {
      id: newId(),
      workspaceId: contact.workspaceId,
      contactId: contact.id,
      text,
      creatorName: principal.name ?? null,
      creatorId: principal.serviceAccountId,
      lastModifierId: principal.serviceAccountId,
    });
  }

  /** Runs `work` in a transaction; a duplicate phone number in the workspace is a 409. */
  private async writeUnique<T>(phoneNumber: string | undefined, work: (manager: EntityManager) => Promise<T>): Promise<T> {
    try {
      return await this.dataSource.transaction(work);
    } catch (err) {
      if (isUniqueViolation(err)) throw PhoneNumberTaken(phoneNumber ?? '');
      throw err;
    }
  }
}
