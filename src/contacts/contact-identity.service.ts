import { Injectable } from '@nestjs/common';
import type { QueryDeepPartialEntity } from 'typeorm';
import type { Actor } from '../auth/principal.js';
import { newId } from '../common/id.js';
import { WebhookEventType } from '../webhooks/webhook-kind.js';
import { ContactChanges } from './contact-changes.service.js';
import { ContactHistoryRepository } from './contact-history.repository.js';
import { builtInChanges } from './contact-history.js';
import { ContactNotesRepository } from './contact-notes.repository.js';
import { ContactPropertyValuesRepository } from './contact-property-values.repository.js';
import { type Contact, ContactType } from './contact.entity.js';
import { ContactsRepository } from './contacts.repository.js';
import type { WhatsAppIds } from './whatsapp-ids.js';

export { whatsAppMatchesAmong, type WhatsAppIds } from './whatsapp-ids.js';

/** How a WhatsApp message or send names a person: number, business-scoped ids, username and profile name, each when known. */
export interface WhatsAppIdentity extends WhatsAppIds {
  username?: string | null;
  /** `contacts[].profile.name`: names a new contact. */
  profileName?: string | null;
}

/** What {@link ContactIdentity.absorb} moved from the merged contact to the one that stays. */
export interface AbsorbedContact {
  contact: Contact;
  propertiesMoved: number;
  notesMoved: number;
  historyMoved: number;
}

/**
 * Who a number or a WhatsApp user is: the contact a send, a call or a message names, found or
 * created (safe under concurrency), completed with the ids it lacked, or merged into another.
 * Every method runs in the caller's transaction when there is one.
 */
@Injectable()
export class ContactIdentity {
  constructor(
    private readonly contacts: ContactsRepository,
    private readonly values: ContactPropertyValuesRepository,
    private readonly notes: ContactNotesRepository,
    private readonly historyEntries: ContactHistoryRepository,
    private readonly changes: ContactChanges,
  ) {}

  /**
   * The workspace's contact with this number, created (name = `name` or the number) when there is
   * none. Safe under concurrency: a contact created meanwhile by another request is found, not duplicated.
   */
  async findOrCreateByPhone(actor: Actor, phoneNumber: string, name?: string): Promise<Contact> {
    const existing = await this.contacts.findByPhone(actor.workspaceId, phoneNumber);
    if (existing) return existing;
    const id = await this.createByPhone(actor, phoneNumber, name);
    return (await this.contacts.findById(actor.workspaceId, id))!;
  }

  /** {@link findOrCreateByPhone} for callers that need only the id: no read-back of a new contact. */
  async idByPhone(actor: Actor, phoneNumber: string): Promise<string> {
    const existing = await this.contacts.findIdByPhone(actor.workspaceId, phoneNumber);
    return existing ?? this.createByPhone(actor, phoneNumber);
  }

  /** The contacts a WhatsApp sender's ids point at: by number and by BSUID (maybe the same one). */
  matchWhatsApp(workspaceId: string, ids: WhatsAppIds): Promise<{ byPhone: Contact | null; byUser: Contact | null }> {
    return this.contacts.findWhatsAppMatches(workspaceId, ids);
  }

  /** The contacts these senders' ids point at, in one read, for {@link whatsAppMatchesAmong}. */
  findWhatsAppCandidates(workspaceId: string, senders: readonly WhatsAppIds[]): Promise<Contact[]> {
    return this.contacts.findWhatsAppCandidates(workspaceId, senders);
  }

  /** Serialises the caller's transaction with every other one creating, completing or merging contacts of these ids. */
  lockWhatsApp(workspaceId: string, ids: WhatsAppIds): Promise<void> {
    return this.contacts.lockWhatsAppIds(workspaceId, ids);
  }

  /** The workspace's contact with this BSUID, or null. */
  findByWhatsAppUserId(workspaceId: string, userId: string): Promise<Contact | null> {
    return this.contacts.findOne(workspaceId, { whatsAppUserId: userId });
  }

  /** The workspace's contact with this BSUID, created (named by it) when there is none. */
  async findOrCreateByWhatsAppUserId(actor: Actor, userId: string): Promise<Contact> {
    const ids = { phoneNumber: null, userId };
    const found = (await this.matchWhatsApp(actor.workspaceId, ids)).byUser;
    if (found) return found;
    await this.lockWhatsApp(actor.workspaceId, ids);
    return (
      (await this.matchWhatsApp(actor.workspaceId, ids)).byUser ??
      (await this.createForWhatsApp(actor, ids)) ??
      (await this.matchWhatsApp(actor.workspaceId, ids)).byUser!
    );
  }

  /**
   * A new contact for a WhatsApp user, named by their profile name (else the number, the username
   * or the BSUID), with its history; null when one of its ids was taken meanwhile (match again).
   */
  async createForWhatsApp(actor: Actor, identity: WhatsAppIdentity): Promise<Contact | null> {
    const contacts = this.contacts;
    const contact = this.newPerson(actor, {
      name: (identity.profileName?.trim() || identity.phoneNumber || identity.username || identity.userId || 'WhatsApp user').slice(0, 200),
      phoneNumber: identity.phoneNumber,
      whatsAppUserId: identity.userId,
      whatsAppParentUserId: identity.parentUserId ?? null,
      whatsAppUsername: identity.username ?? null,
    });
    if (identity.username) await contacts.release(actor.workspaceId, 'whatsAppUsername', identity.username, contact.id);
    if (identity.parentUserId) await contacts.release(actor.workspaceId, 'whatsAppParentUserId', identity.parentUserId, contact.id);
    if (!(await contacts.insertWhereNumberFree(actor.workspaceId, contact))) return null;
    await this.changes.record(contact, actor, builtInChanges({}, contact), WebhookEventType.ContactCreated);
    return contact;
  }

  /**
   * Completes a contact with what a WhatsApp message says of its sender: a number or a BSUID it did
   * not have (or a new BSUID), the parent BSUID, the username. Call with the ids locked
   * ({@link lockWhatsApp}) and only when no other contact holds the number or the BSUID. Changes of
   * the number and the BSUID are history entries. Returns the contact as it is now.
   */
  async learnWhatsApp(
    actor: Actor,
    contact: Contact,
    identity: WhatsAppIdentity,
    options: { replacePhoneNumber?: boolean } = {},
  ): Promise<Contact> {
    const patch = whatsAppPatch(contact, identity, options.replacePhoneNumber ?? false);
    if (Object.keys(patch).length === 0) return contact;
    const contacts = this.contacts;
    if (patch.whatsAppUsername) await contacts.release(contact.workspaceId, 'whatsAppUsername', patch.whatsAppUsername, contact.id);
    if (patch.whatsAppParentUserId)
      await contacts.release(contact.workspaceId, 'whatsAppParentUserId', patch.whatsAppParentUserId, contact.id);
    const after = { ...contact, ...patch, lastModificationTime: new Date(), lastModifierId: actor.serviceAccountId };
    await contacts.update(contact.workspaceId, { id: contact.id }, {
      ...patch,
      lastModificationTime: after.lastModificationTime,
      lastModifierId: after.lastModifierId,
    } as QueryDeepPartialEntity<Contact>);
    await this.changes.record(contact, actor, builtInChanges(contact, after));
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
  async absorb(actor: Actor, survivor: Contact, merged: Contact): Promise<AbsorbedContact> {
    const workspaceId = survivor.workspaceId;
    const [propertiesMoved, notesMoved, historyMoved] = [
      (await this.values.moveToContact(workspaceId, merged.id, survivor.id)).length,
      (await this.notes.moveToContact(workspaceId, merged.id, survivor.id)).length,
      (await this.historyEntries.moveToContact(workspaceId, merged.id, survivor.id)).length,
    ];
    await this.contacts.delete(workspaceId, { id: merged.id });
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
    await this.contacts.update(workspaceId, { id: survivor.id }, patch as QueryDeepPartialEntity<Contact>);
    await this.changes.record(survivor, actor, [
      { propertyName: 'MergedContact', propertyDefinitionId: null, oldValue: merged.id, newValue: survivor.id },
    ]);
    return { contact: { ...survivor, ...patch }, propertiesMoved, notesMoved, historyMoved };
  }

  /** A new individual contact (not yet saved) known by its name and ids only, as a send, a call or a message creates one. */
  private newPerson(actor: Actor, known: Pick<Contact, 'name' | 'phoneNumber'> & Partial<Contact>): Contact {
    return this.contacts.create(actor.workspaceId, {
      id: newId(),
      contactType: ContactType.Individual,
      email: null,
      company: null,
      position: null,
      customFields: null,
      creatorId: actor.serviceAccountId,
      lastModifierId: actor.serviceAccountId,
      ...known,
    });
  }

  /** Creates the contact with its history entry; returns its id, or the id of the one a concurrent request created. */
  private async createByPhone(actor: Actor, phoneNumber: string, name?: string): Promise<string> {
    const contact = this.newPerson(actor, { name: name?.trim() || phoneNumber, phoneNumber });
    if (!(await this.contacts.insertWhereNumberFree(actor.workspaceId, contact))) {
      return (await this.contacts.findIdByPhone(actor.workspaceId, phoneNumber))!;
    }
    await this.changes.record(contact, actor, builtInChanges({}, contact), WebhookEventType.ContactCreated);
    return contact.id;
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
