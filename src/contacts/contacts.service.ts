import { Injectable } from '@nestjs/common';
import type { Principal } from '../auth/principal.js';
import { ContactPropertiesService } from '../contact-properties/contact-properties.service.js';
import type { PagedRequestDto } from '../common/paging/paged-request.dto.js';
import type { PagedResult } from '../common/paging/paged-result.js';
import { newId } from '../common/id.js';
import { pgError } from '../database/pg-errors.js';
import { inTransaction, Transactional } from '../database/transactions.js';
import { WebhookEventType } from '../webhooks/webhook-kind.js';
import { TagsService } from '../tags/tags.service.js';
import { WebhookPublisher } from '../webhooks/webhook-publisher.js';
import { ContactChanges } from './contact-changes.service.js';
import { propertyConditions, type CheckedContactCriteria, type ContactCriteria } from './contact-criteria.js';
import type { ContactHistoryEntry } from './contact-history-entry.entity.js';
import { ContactHistoryRepository } from './contact-history.repository.js';
import { builtInChanges } from './contact-history.js';
import { ContactViews } from './contact-views.js';
import { type Contact, ContactType } from './contact.entity.js';
import { ContactsRepository } from './contacts.repository.js';
import { IdentityRequired, PhoneNumberTaken, WhatsAppUserIdTaken } from './contacts.errors.js';
import type { CreateContactDto, UpdateContactDto } from './dto/contact.dto.js';

/** The unique index of WhatsApp user ids (its violation is a duplicate BSUID, not a duplicate number). */
const WHATS_APP_USER_ID_INDEX = 'ux_contacts_whats_app_user_id';

/**
 * Contacts of a workspace: create, read, update, delete, search, and their audit trail. Property
 * values, consent and identity (who a number or a WhatsApp user is) have services of their own.
 */
@Injectable()
export class ContactsService {
  constructor(
    private readonly contacts: ContactsRepository,
    private readonly historyEntries: ContactHistoryRepository,
    private readonly properties: ContactPropertiesService,
    private readonly tags: TagsService,
    private readonly views: ContactViews,
    private readonly changes: ContactChanges,
    private readonly webhooks: WebhookPublisher,
  ) {}

  get(workspaceId: string, id: string): Promise<Contact> {
    return this.changes.get(workspaceId, id);
  }

  /** The workspace's contact, or null (for other features, which say themselves what a missing one means). */
  findById(workspaceId: string, id: string): Promise<Contact | null> {
    return this.contacts.findById(workspaceId, id);
  }

  /** The workspace's contacts with these ids (those that exist), for other modules' views. */
  findByIds(workspaceId: string, ids: readonly string[]): Promise<Contact[]> {
    return this.contacts.findByIds(workspaceId, ids);
  }

  async create(principal: Principal, input: CreateContactDto): Promise<Contact> {
    if (!input.phoneNumber && !input.whatsAppUserId) throw IdentityRequired();
    return this.writeUnique(input, () => this.insert(principal, input));
  }

  async update(principal: Principal, id: string, input: UpdateContactDto): Promise<Contact> {
    const workspaceId = principal.workspaceId;
    return this.writeUnique(input, async () => {
      const contact = await this.changes.get(workspaceId, id, { lock: true });
      const before = { ...contact };
      for (const field of [
        'name',
        'phoneNumber',
        'whatsAppUserId',
        'email',
        'company',
        'position',
        'contactType',
        'customFields',
      ] as const) {
        if (input[field] !== undefined) (contact as unknown as Record<string, unknown>)[field] = input[field];
      }
      const changes = builtInChanges(before, contact);
      const customFieldsChanged = JSON.stringify(before.customFields) !== JSON.stringify(contact.customFields);
      if (changes.length > 0 || customFieldsChanged || input.note) {
        contact.lastModifierId = principal.serviceAccountId;
        contact.lastModificationTime = new Date();
        await this.contacts.save(workspaceId, contact);
        if (input.note) await this.changes.addNote(contact, principal, input.note);
        await this.changes.record(contact, principal, changes);
      }
      return (await this.contacts.findById(workspaceId, id))!;
    });
  }

  /** Deletes the contact; `contact.deleted` carries it as it was. */
  @Transactional()
  async remove(workspaceId: string, id: string): Promise<void> {
    const contact = await this.changes.get(workspaceId, id, { lock: true });
    const announced = await this.webhooks.wants(workspaceId, WebhookEventType.ContactDeleted);
    const dto = announced ? await this.views.one(contact) : undefined;
    await this.contacts.delete(workspaceId, { id });
    if (dto) await this.webhooks.emit(workspaceId, WebhookEventType.ContactDeleted, dto, { orderingKey: id });
  }

  /** Get Contacts and Search Contacts: the criteria of API.md §5, one page, with the total. */
  async find(workspaceId: string, criteria: ContactCriteria, paging: PagedRequestDto): Promise<PagedResult<Contact>> {
    return this.contacts.page(workspaceId, await this.checkCriteria(workspaceId, criteria), paging);
  }

  /**
   * A campaign's audience (API.md §13) as SQL to embed in a set-based statement: the contacts
   * matching Search Contacts criteria (checked as Search Contacts checks them), or those of
   * `contactIds` that are the workspace's, selecting `workspace_id, id, phone_number, whats_app_user_id`; its
   * parameters are `$1`… in `params`.
   */
  async audienceSql(
    workspaceId: string,
    criteria: ContactCriteria,
    contactIds?: readonly string[],
  ): Promise<{ sql: string; params: unknown[] }> {
    const [sql, params] = this.contacts
      .matchingAudience(workspaceId, await this.checkCriteria(workspaceId, criteria), contactIds)
      .getQueryAndParameters();
    return { sql, params };
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
      whatsAppUserId: criteria.whatsAppUserId,
      sorting: criteria.sorting,
      tagIds: criteria.tagIds,
      consent: criteria.consent,
      propertyConditions: propertyConditions(filters, definitions),
    };
  }

  async history(workspaceId: string, contactId: string, skip: number, take: number): Promise<PagedResult<ContactHistoryEntry>> {
    await this.get(workspaceId, contactId);
    return this.historyEntries.page(workspaceId, contactId, skip, take);
  }

  /** Creates the contact with its history (one entry per filled built-in field) and optional note. */
  private async insert(principal: Principal, input: CreateContactDto): Promise<Contact> {
    const contact = this.contacts.create(principal.workspaceId, {
      id: newId(),
      name: input.name,
      phoneNumber: input.phoneNumber ?? null,
      whatsAppUserId: input.whatsAppUserId ?? null,
      contactType: input.contactType ?? ContactType.Individual,
      email: input.email ?? null,
      company: input.company ?? null,
      position: input.position ?? null,
      customFields: input.customFields ?? null,
      creatorId: principal.serviceAccountId,
      lastModifierId: principal.serviceAccountId,
    });
    await this.contacts.insert(principal.workspaceId, contact);
    if (input.note) await this.changes.addNote(contact, principal, input.note);
    await this.changes.record(contact, principal, builtInChanges({}, contact), WebhookEventType.ContactCreated);
    return (await this.contacts.findById(principal.workspaceId, contact.id))!;
  }

  /** Runs `work` in a transaction; a duplicate phone number or WhatsApp user id in the workspace is a 409. */
  private async writeUnique<T>(input: { phoneNumber?: string; whatsAppUserId?: string }, work: () => Promise<T>): Promise<T> {
    try {
      return await inTransaction(work);
    } catch (err) {
      if (pgError.is(err, 'unique', WHATS_APP_USER_ID_INDEX)) throw WhatsAppUserIdTaken(input.whatsAppUserId ?? '');
      if (pgError.is(err, 'unique')) throw PhoneNumberTaken(input.phoneNumber ?? '');
      throw err;
    }
  }
}
