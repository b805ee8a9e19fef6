import { Injectable } from '@nestjs/common';
import type { Actor, Principal } from '../auth/principal.js';
import { Transactional } from '../database/transactions.js';
import { CONSENT_FIELDS, CONSENT_HISTORY_NAME, CONSENT_KINDS, type ConsentKind, type ConsentPatch, type ConsentStatus } from './consent.js';
import { ContactChanges } from './contact-changes.service.js';
import type { HistoryChange } from './contact-history.js';
import type { Contact } from './contact.entity.js';
import { ContactsRepository } from './contacts.repository.js';
import type { UpdateContactConsentDto } from './dto/consent.dto.js';

/** The consents a contact gave or withdrew (API.md §13): WhatsApp marketing and calls. */
@Injectable()
export class ContactConsent {
  constructor(
    private readonly contacts: ContactsRepository,
    private readonly changes: ContactChanges,
  ) {}

  /**
   * Sets the contact's consents, in the caller's transaction (or one of its own) with the row
   * locked. Each actual change of a status is a history entry (`WhatsAppMarketingConsent`,
   * `CallConsent`) and a `contact.updated` event; asking for the status it already has changes
   * nothing (the first time and source stay). A missing contact (or another workspace's) is a 404.
   */
  @Transactional()
  async set(actor: Actor, contactId: string, patch: ConsentPatch): Promise<Contact> {
    const workspaceId = actor.workspaceId;
    const contact = await this.changes.get(workspaceId, contactId, { lock: true });
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
    await this.contacts.update(
      workspaceId,
      { id: contact.id },
      {
        ...update,
        lastModificationTime: contact.lastModificationTime,
        lastModifierId: contact.lastModifierId,
      },
    );
    await this.changes.record(contact, actor, changes);
    return contact;
  }

  /** Update Contact Consent: the consents of the body, `source` Api unless given. */
  update(principal: Principal, contactId: string, input: UpdateContactConsentDto): Promise<Contact> {
    const patch: ConsentPatch = {};
    for (const kind of CONSENT_KINDS) {
      const asked = input[kind];
      if (asked) patch[kind] = { status: asked.status, source: asked.source ?? 'Api' };
    }
    return this.set(principal, contactId, patch);
  }

  /**
   * The consent of the workspace's contact with this number (Unknown when no contact has it): one
   * indexed read, for the send paths that refuse opted-out recipients.
   */
  ofPhone(workspaceId: string, phoneNumber: string, kind: ConsentKind): Promise<ConsentStatus> {
    return this.contacts.consentByPhone(workspaceId, phoneNumber, kind);
  }
}
