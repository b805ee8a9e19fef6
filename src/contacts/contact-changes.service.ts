import { Injectable } from '@nestjs/common';
import type { Actor, Principal } from '../auth/principal.js';
import { WebhookEventType } from '../webhooks/webhook-kind.js';
import { WebhookPublisher } from '../webhooks/webhook-publisher.js';
import { ContactViews } from './contact-views.js';
import { ContactHistoryRepository } from './contact-history.repository.js';
import type { HistoryChange } from './contact-history.js';
import { ContactNotesRepository } from './contact-notes.repository.js';
import type { Contact } from './contact.entity.js';
import { ContactsRepository } from './contacts.repository.js';
import { ContactNotFound } from './contacts.errors.js';

/**
 * What every change of a contact shares, whichever service makes it: reading the row to change
 * (locked), and recording the change (its history entries and the event endpoints receive), in
 * the caller's transaction.
 */
@Injectable()
export class ContactChanges {
  constructor(
    private readonly contacts: ContactsRepository,
    private readonly historyEntries: ContactHistoryRepository,
    private readonly notes: ContactNotesRepository,
    private readonly views: ContactViews,
    private readonly webhooks: WebhookPublisher,
  ) {}

  /** The workspace's contact; `lock` takes its row until the transaction ends. Another workspace's or a missing one is a 404. */
  async get(workspaceId: string, id: string, options: { lock?: boolean } = {}): Promise<Contact> {
    const contact = await this.contacts.findById(workspaceId, id, options);
    if (!contact) throw ContactNotFound(id);
    return contact;
  }

  /**
   * The one place a contact's changes are recorded: its history entries, and the event endpoints
   * receive (`contact.created`, or `contact.updated` with the changes as the history has them).
   * Whatever change is recorded here is announced too.
   */
  async record(
    contact: Contact,
    actor: Actor,
    changes: HistoryChange[],
    event: WebhookEventType.ContactCreated | WebhookEventType.ContactUpdated = WebhookEventType.ContactUpdated,
  ): Promise<void> {
    await this.historyEntries.record(contact.workspaceId, contact.id, actor.serviceAccountId, changes);
    if (!(await this.webhooks.wants(contact.workspaceId, event))) return;
    const current = await this.contacts.findById(contact.workspaceId, contact.id);
    if (!current) return;
    const dto = await this.views.one(current);
    const route = { orderingKey: contact.id };
    if (event === WebhookEventType.ContactCreated) {
      await this.webhooks.emit(contact.workspaceId, event, dto, route);
    } else {
      const data = { ...dto, changes: changes.map(({ propertyName, oldValue, newValue }) => ({ propertyName, oldValue, newValue })) };
      await this.webhooks.emit(contact.workspaceId, event, data, route);
    }
  }

  /** Stamps the contact (and its row) as changed now by `actor`. */
  async touch(contact: Contact, actor: Actor): Promise<void> {
    contact.lastModificationTime = new Date();
    contact.lastModifierId = actor.serviceAccountId;
    await this.contacts.update(
      contact.workspaceId,
      { id: contact.id },
      { lastModificationTime: contact.lastModificationTime, lastModifierId: contact.lastModifierId },
    );
  }

  async addNote(contact: Contact, principal: Principal, text: string): Promise<void> {
    await this.notes.add(contact.workspaceId, contact.id, {
      text,
      creatorName: principal.name ?? null,
      creatorId: principal.serviceAccountId,
    });
  }
}
