import { Injectable } from '@nestjs/common';
import type { EntityManager, QueryDeepPartialEntity } from 'typeorm';
import type { Actor, Principal } from '../auth/principal.js';
import { ContactPropertiesService } from '../contact-properties/contact-properties.service.js';
import type { ContactPropertyDefinition } from '../contact-properties/contact-property-definition.entity.js';
import { newId } from '../common/id.js';
import type { PagedRequestDto } from '../common/paging/paged-request.dto.js';
import type { PagedResult } from '../common/paging/paged-result.js';
import { pgError } from '../database/pg-errors.js';
import { WebhookEventType } from '../queue/queue-names.js';
import { TagsService } from '../tags/tags.service.js';
import { WebhookPublisher } from '../webhooks/webhook-publisher.js';
import { ContactViews } from './contact-views.js';
import { CONSENT_FIELDS, CONSENT_HISTORY_NAME, CONSENT_KINDS, type ConsentKind, type ConsentPatch, type ConsentStatus } from './consent.js';
import { propertyConditions, type CheckedContactCriteria, type ContactCriteria } from './contact-criteria.js';
import type { ContactHistoryEntry } from './contact-history-entry.entity.js';
import { ContactHistoryRepository } from './contact-history.repository.js';
import { builtInChanges, type HistoryChange } from './contact-history.js';
import { ContactNotesRepository } from './contact-notes.repository.js';
import { ContactPropertyValuesRepository, type ContactRef } from './contact-property-values.repository.js';
import { type Contact, ContactType } from './contact.entity.js';
import { ContactsRepository, type WhatsAppIds } from './contacts.repository.js';
import {
  ContactNotFound,
  IdentityRequired,
  PhoneNumberTaken,
  PropertyRequired,
  ValueMissing,
  WhatsAppUserIdTaken,
} from './contacts.errors.js';
import type { CreateContactDto, UpdateContactDto } from './dto/contact.dto.js';
import type { UpdateContactConsentDto } from './dto/consent.dto.js';
import { sameValue, toTypedValue, valueAsString, type TypedValue } from './property-value.js';

/** The unique index of WhatsApp user ids (its violation is a duplicate BSUID, not a duplicate number). */
const WHATS_APP_USER_ID_INDEX = 'ux_contacts_whats_app_user_id';

/** How a WhatsApp message or send names a person: number, business-scoped ids, username and profile name, each when known. */
export interface WhatsAppIdentity extends WhatsAppIds {
  username?: string | null;
  /** `contacts[].profile.name`: names a new contact. */
  profileName?: string | null;
}

/** What {@link ContactsService.absorb} moved from the merged contact to the one that stays. */
export interface AbsorbedContact {
  contact: Contact;
  propertiesMoved: number;
  notesMoved: number;
  historyMoved: number;
}

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
    private readonly views: ContactViews,
    private readonly webhooks: WebhookPublisher,
  ) {}

  async get(workspaceId: string, id: string): Promise<Contact> {
    return this.getWith(this.contacts, workspaceId, id);
  }

  /** The workspace's contacts with these ids (those that exist), for other modules' views. */
  findByIds(workspaceId: string, ids: readonly string[]): Promise<Contact[]> {
    return this.contacts.findByIds(workspaceId, ids);
  }

  /** {@link findByIds} in the caller's transaction. */
  findByIdsIn(manager: EntityManager, workspaceId: string, ids: readonly string[]): Promise<Contact[]> {
    return this.contacts.withManager(manager).findByIds(workspaceId, ids);
  }

  async create(principal: Principal, input: CreateContactDto): Promise<Contact> {
    if (!input.phoneNumber && !input.whatsAppUserId) throw IdentityRequired();
    return this.writeUnique(input, (manager) => this.insert(manager, principal, input));
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

  /** Runs `work` in one transaction (for callers that combine contact changes with their own). */
  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.contacts.transaction(work);
  }

  /** The workspace's contact, or null, read in the caller's transaction. */
  findInTransaction(manager: EntityManager, workspaceId: string, id: string): Promise<Contact | null> {
    return this.contacts.withManager(manager).findById(workspaceId, id);
  }

  /** The contacts a WhatsApp sender's ids point at, in the caller's transaction: by number and by BSUID (maybe the same one). */
  matchWhatsApp(
    manager: EntityManager,
    workspaceId: string,
    ids: WhatsAppIds,
  ): Promise<{ byPhone: Contact | null; byUser: Contact | null }> {
    return this.contacts.withManager(manager).findWhatsAppMatches(workspaceId, ids);
  }

  /** The contacts these senders' ids point at, in one read, for {@link whatsAppMatchesAmong}. */
  findWhatsAppCandidates(manager: EntityManager, workspaceId: string, senders: readonly WhatsAppIds[]): Promise<Contact[]> {
    return this.contacts.withManager(manager).findWhatsAppCandidates(workspaceId, senders);
  }

  /** Serialises the caller's transaction with every other one creating, completing or merging contacts of these ids. */
  lockWhatsApp(manager: EntityManager, workspaceId: string, ids: WhatsAppIds): Promise<void> {
    return this.contacts.withManager(manager).lockWhatsAppIds(workspaceId, ids);
  }

  /**
   * A new contact for a WhatsApp user, named by their profile name (else the number, the username
   * or the BSUID), with its history; null when one of its ids was taken meanwhile (match again).
   */
  async createForWhatsApp(manager: EntityManager, actor: Actor, identity: WhatsAppIdentity): Promise<Contact | null> {
    const contacts = this.contacts.withManager(manager);
    const contact = contacts.create(actor.workspaceId, {
      id: newId(),
      name: (identity.profileName?.trim() || identity.phoneNumber || identity.username || identity.userId || 'WhatsApp user').slice(0, 200),
      phoneNumber: identity.phoneNumber,
      whatsAppUserId: identity.userId,
      whatsAppParentUserId: identity.parentUserId ?? null,
      whatsAppUsername: identity.username ?? null,
      contactType: ContactType.Individual,
      email: null,
      company: null,
      position: null,
      customFields: null,
      creatorId: actor.serviceAccountId,
      lastModifierId: actor.serviceAccountId,
    });
    if (identity.username) await contacts.release(actor.workspaceId, 'whatsAppUsername', identity.username, contact.id);
    if (identity.parentUserId) await contacts.release(actor.workspaceId, 'whatsAppParentUserId', identity.parentUserId, contact.id);
    if (!(await contacts.insertWhereNumberFree(actor.workspaceId, contact))) return null;
    await this.recordHistory(manager, contact, actor, builtInChanges({}, contact), WebhookEventType.ContactCreated);
    return contact;
  }

  /**
   * Completes a contact with what a WhatsApp message says of its sender: a number or a BSUID it did
   * not have (or a new BSUID), the parent BSUID, the username. Call with the ids locked
   * ({@link lockWhatsApp}) and only when no other contact holds the number or the BSUID. Changes of
   * the number and the BSUID are history entries. Returns the contact as it is now.
   */
  async learnWhatsApp(
    manager: EntityManager,
    actor: Actor,
    contact: Contact,
    identity: WhatsAppIdentity,
    options: { replacePhoneNumber?: boolean } = {},
  ): Promise<Contact> {
    const patch = whatsAppPatch(contact, identity, options.replacePhoneNumber ?? false);
    if (Object.keys(patch).length === 0) return contact;
    const contacts = this.contacts.withManager(manager);
    if (patch.whatsAppUsername) await contacts.release(contact.workspaceId, 'whatsAppUsername', patch.whatsAppUsername, contact.id);
    if (patch.whatsAppParentUserId)
      await contacts.release(contact.workspaceId, 'whatsAppParentUserId', patch.whatsAppParentUserId, contact.id);
    const after = { ...contact, ...patch, lastModificationTime: new Date(), lastModifierId: actor.serviceAccountId };
    await contacts.update(contact.workspaceId, { id: contact.id }, {
      ...patch,
      lastModificationTime: after.lastModificationTime,
      lastModifierId: after.lastModifierId,
    } as QueryDeepPartialEntity<Contact>);
    await this.recordHistory(manager, contact, actor, builtInChanges(contact, after));
    return after;
  }

  /** True when {@link learnWhatsApp} would change the contact. */
  knowsWhatsApp(contact: Contact, identity: WhatsAppIdentity): boolean {
    return Object.keys(whatsAppPatch(contact, identity, false)).length === 0;
  }

  /**
   * Merges `merged` into `survivor`, in the caller's transaction (its conversations must have
   * moved already): the property values the survivor lacks, the notes and the history move; the
   * survivor takes the merged contact's number and fills its empty fields from it (and its name,
   * when the survivor was only named by its WhatsApp ids); the merged contact is deleted; the merge
   * is one history entry on the survivor (`MergedContact`, old value the merged contact's id).
   */
  async absorb(manager: EntityManager, actor: Actor, survivor: Contact, merged: Contact): Promise<AbsorbedContact> {
    const workspaceId = survivor.workspaceId;
    const contacts = this.contacts.withManager(manager);
    const [propertiesMoved, notesMoved, historyMoved] = [
      await this.values.withManager(manager).moveToContact(workspaceId, merged.id, survivor.id),
      await this.notes.withManager(manager).moveToContact(workspaceId, merged.id, survivor.id),
      await this.historyEntries.withManager(manager).moveToContact(workspaceId, merged.id, survivor.id),
    ];
    await contacts.delete(workspaceId, { id: merged.id });
    const namedByIds = [survivor.whatsAppUserId, survivor.whatsAppUsername, survivor.phoneNumber].includes(survivor.name);
    const patch = {
      phoneNumber: survivor.phoneNumber ?? merged.phoneNumber,
      name: namedByIds ? merged.name : survivor.name,
      email: survivor.email ?? merged.email,
      company: survivor.company ?? merged.company,
      position: survivor.position ?? merged.position,
      customFields: survivor.customFields ?? merged.customFields,
      lastModificationTime: new Date(),
      lastModifierId: actor.serviceAccountId,
    };
    await contacts.update(workspaceId, { id: survivor.id }, patch as QueryDeepPartialEntity<Contact>);
    await this.recordHistory(manager, survivor, actor, [
      { propertyName: 'MergedContact', propertyDefinitionId: null, oldValue: merged.id, newValue: survivor.id },
    ]);
    return { contact: { ...survivor, ...patch }, propertiesMoved, notesMoved, historyMoved };
  }

  /** The workspace's contact with this BSUID, or null. */
  findByWhatsAppUserId(workspaceId: string, userId: string): Promise<Contact | null> {
    return this.contacts.findOne(workspaceId, { whatsAppUserId: userId });
  }

  /** The workspace's contact with this BSUID, created (named by it) when there is none, in the caller's transaction. */
  async findOrCreateByWhatsAppUserId(manager: EntityManager, actor: Actor, userId: string): Promise<Contact> {
    const ids = { phoneNumber: null, userId };
    const found = (await this.matchWhatsApp(manager, actor.workspaceId, ids)).byUser;
    if (found) return found;
    await this.lockWhatsApp(manager, actor.workspaceId, ids);
    return (
      (await this.matchWhatsApp(manager, actor.workspaceId, ids)).byUser ??
      (await this.createForWhatsApp(manager, actor, ids)) ??
      (await this.matchWhatsApp(manager, actor.workspaceId, ids)).byUser!
    );
  }

  async update(principal: Principal, id: string, input: UpdateContactDto): Promise<Contact> {
    const workspaceId = principal.workspaceId;
    return this.writeUnique(input, async (manager) => {
      const contacts = this.contacts.withManager(manager);
      const contact = await this.getWith(contacts, workspaceId, id, { lock: true });
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
        await contacts.save(workspaceId, contact);
        if (input.note) await this.addNote(manager, contact, principal, input.note);
        await this.recordHistory(manager, contact, principal, changes);
      }
      return (await contacts.findById(workspaceId, id))!;
    });
  }

  /** Deletes the contact; `contact.deleted` carries it as it was. */
  async remove(workspaceId: string, id: string): Promise<void> {
    await this.contacts.transaction(async (manager) => {
      const contacts = this.contacts.withManager(manager);
      const contact = await this.getWith(contacts, workspaceId, id, { lock: true });
      const announced = await this.webhooks.wants(manager, workspaceId, WebhookEventType.ContactDeleted);
      const dto = announced ? await this.views.inTransaction(manager).one(contact) : undefined;
      await contacts.delete(workspaceId, { id });
      if (dto) await this.webhooks.emit(manager, workspaceId, WebhookEventType.ContactDeleted, dto, { orderingKey: id });
    });
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

  /**
   * Sets the contact's consents (API.md §13), in the caller's transaction with the row locked.
   * Each actual change of a status is a history entry (`WhatsAppMarketingConsent`, `CallConsent`)
   * and a `contact.updated` event; asking for the status it already has changes nothing (the
   * first time and source stay). A missing contact (or another workspace's) is a 404.
   */
  async setConsent(manager: EntityManager, actor: Actor, contactId: string, patch: ConsentPatch): Promise<Contact> {
    const workspaceId = actor.workspaceId;
    const contacts = this.contacts.withManager(manager);
    const contact = await this.getWith(contacts, workspaceId, contactId, { lock: true });
    const changes: HistoryChange[] = [];
    const update: Record<string, unknown> = {};
    for (const kind of CONSENT_KINDS) {
      const change = patch[kind];
      const fields = CONSENT_FIELDS[kind];
      const current = contact[fields.status];
      if (!change || current === change.status) continue;
      const at = change.at ?? new Date();
      const since = contact[fields.at];
      if (change.onlyIfNewer && since && since.getTime() > at.getTime()) continue;
      const unknown = change.status === 'Unknown';
      update[fields.status] = change.status;
      update[fields.at] = unknown ? null : at;
      update[fields.source] = unknown ? null : change.source;
      changes.push({ propertyName: CONSENT_HISTORY_NAME[kind], propertyDefinitionId: null, oldValue: current, newValue: change.status });
    }
    if (changes.length === 0) return contact;
    Object.assign(contact, update, { lastModificationTime: new Date(), lastModifierId: actor.serviceAccountId });
    await contacts.update(
      workspaceId,
      { id: contact.id },
      {
        ...update,
        lastModificationTime: contact.lastModificationTime,
        lastModifierId: contact.lastModifierId,
      },
    );
    await this.recordHistory(manager, contact, actor, changes);
    return contact;
  }

  /** Update Contact Consent: the consents of the body, `source` Api unless given. */
  updateConsent(principal: Principal, contactId: string, input: UpdateContactConsentDto): Promise<Contact> {
    const patch: ConsentPatch = {};
    for (const kind of CONSENT_KINDS) {
      const asked = input[kind];
      if (asked) patch[kind] = { status: asked.status, source: asked.source ?? 'Api' };
    }
    return this.contacts.transaction((manager) => this.setConsent(manager, principal, contactId, patch));
  }

  /**
   * The consent of the workspace's contact with this number (Unknown when no contact has it): one
   * indexed read, for the send paths that refuse opted-out recipients.
   */
  consentByPhone(workspaceId: string, phoneNumber: string, kind: ConsentKind): Promise<ConsentStatus> {
    return this.contacts.consentByPhone(workspaceId, phoneNumber, kind);
  }

  /** The text a contact (by id, or by number) holds in a Text or Select property; null when none (no contact, no value). */
  propertyText(workspaceId: string, contact: ContactRef, propertyDefinitionId: string): Promise<string | null> {
    return this.values.textOf(workspaceId, contact, propertyDefinitionId);
  }

  /** Get Contacts and Search Contacts: the criteria of API.md §5, one page, with the total. */
  async find(workspaceId: string, criteria: ContactCriteria, paging: PagedRequestDto): Promise<PagedResult<Contact>> {
    return this.contacts.page(workspaceId, await this.checkCriteria(workspaceId, criteria), paging);
  }

  /**
   * A campaign's audience (API.md §13) as SQL to embed in a set-based statement: the contacts
   * matching Search Contacts criteria (checked as Search Contacts checks them), or those of
   * `contactIds` that are the workspace's, selecting `workspace_id, id, phone_number`; its
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
    await contacts.insert(principal.workspaceId, contact);
    if (input.note) await this.addNote(manager, contact, principal, input.note);
    await this.recordHistory(manager, contact, principal, builtInChanges({}, contact), WebhookEventType.ContactCreated);
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
    await this.recordHistory(manager, contact, principal, builtInChanges({}, contact), WebhookEventType.ContactCreated);
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

  /**
   * The one place a contact's changes are recorded: its history entries, and the event endpoints
   * receive (`contact.created`, or `contact.updated` with the changes as the history has them), in
   * the caller's transaction. Whatever change is recorded here is announced too.
   */
  private async recordHistory(
    manager: EntityManager,
    contact: Contact,
    actor: Actor,
    changes: HistoryChange[],
    event: WebhookEventType.ContactCreated | WebhookEventType.ContactUpdated = WebhookEventType.ContactUpdated,
  ): Promise<void> {
    await this.historyEntries.withManager(manager).record(contact.workspaceId, contact.id, actor.serviceAccountId, changes);
    if (!(await this.webhooks.wants(manager, contact.workspaceId, event))) return;
    const current = await this.contacts.withManager(manager).findById(contact.workspaceId, contact.id);
    if (!current) return;
    const dto = await this.views.inTransaction(manager).one(current);
    const route = { orderingKey: contact.id };
    if (event === WebhookEventType.ContactCreated) {
      await this.webhooks.emit(manager, contact.workspaceId, event, dto, route);
    } else {
      const data = { ...dto, changes: changes.map(({ propertyName, oldValue, newValue }) => ({ propertyName, oldValue, newValue })) };
      await this.webhooks.emit(manager, contact.workspaceId, event, data, route);
    }
  }

  private async addNote(manager: EntityManager, contact: Contact, principal: Principal, text: string): Promise<void> {
    await this.notes.withManager(manager).add(contact.workspaceId, contact.id, {
      text,
      creatorName: principal.name ?? null,
      creatorId: principal.serviceAccountId,
    });
  }

  /** Runs `work` in a transaction; a duplicate phone number or WhatsApp user id in the workspace is a 409. */
  private async writeUnique<T>(
    input: { phoneNumber?: string; whatsAppUserId?: string },
    work: (manager: EntityManager) => Promise<T>,
  ): Promise<T> {
    try {
      return await this.contacts.transaction(work);
    } catch (err) {
      if (pgError.is(err, 'unique', WHATS_APP_USER_ID_INDEX)) throw WhatsAppUserIdTaken(input.whatsAppUserId ?? '');
      if (pgError.is(err, 'unique')) throw PhoneNumberTaken(input.phoneNumber ?? '');
      throw err;
    }
  }
}

/** What a WhatsApp message says of its sender that the contact does not have yet (the fields to set). */
function whatsAppPatch(contact: Contact, identity: WhatsAppIdentity, replacePhoneNumber: boolean): Partial<Contact> {
  const patch: Partial<Contact> = {};
  if (identity.phoneNumber && identity.phoneNumber !== contact.phoneNumber && (replacePhoneNumber || !contact.phoneNumber)) {
    patch.phoneNumber = identity.phoneNumber;
  }
  if (identity.userId && identity.userId !== contact.whatsAppUserId) patch.whatsAppUserId = identity.userId;
  if (identity.parentUserId && identity.parentUserId !== contact.whatsAppParentUserId) patch.whatsAppParentUserId = identity.parentUserId;
  if (identity.username && identity.username !== contact.whatsAppUsername) patch.whatsAppUsername = identity.username;
  return patch;
}
