import { Injectable, Logger } from '@nestjs/common';
import type { Actor } from '../../auth/principal.js';
import type { Contact } from '../../contacts/contact.entity.js';
import { ContactConsent } from '../../contacts/contact-consent.service.js';
import { ContactIdentity, whatsAppMatchesAmong, type WhatsAppIdentity } from '../../contacts/contact-identity.service.js';
import { ContactsService } from '../../contacts/contacts.service.js';
import { inTransaction, Transactional } from '../../database/transactions.js';
import { ConversationsService } from '../../conversations/conversations.service.js';
import { WebhookEventType } from '../../webhooks/webhook-kind.js';
import { WebhookPublisher } from '../../webhooks/webhook-publisher.js';
import { NotFoundError } from '../../common/errors/domain-error.js';
import type { MarketingPreference } from './cloud-webhook.js';
import type { IdentityUpdate } from './inbound-message.js';

/** Who the service acts as when WhatsApp itself changes a contact (history entries without a creator). */
const whatsAppActor = (workspaceId: string): Actor => ({ workspaceId, serviceAccountId: null, name: 'WhatsApp' });

/**
 * Contacts as WhatsApp names them (API.md §7.1, "Who sent it"): a sender is matched by its number
 * and by its business-scoped user id; a contact is completed with the ids it lacked, created when
 * there is none (named by the profile name), and when the number and the BSUID name two contacts
 * the number-only one is merged into the BSUID one (one history entry, one `contact.merged` event).
 * Meta's identity changes (`user_id_update`, `user_changed_number` / `user_changed_user_id`) move the ids.
 */
@Injectable()
export class WhatsAppContactsService {
  private readonly logger = new Logger(WhatsAppContactsService.name);

  constructor(
    private readonly contacts: ContactIdentity,
    private readonly consents: ContactConsent,
    private readonly contactRecords: ContactsService,
    private readonly conversations: ConversationsService,
    private readonly webhooks: WebhookPublisher,
  ) {}

  /**
   * The contact a message's sender is, in the caller's transaction. Usually one read: the contact
   * exists and knows every id the message names. Otherwise the ids are locked (two messages of a
   * new user do not create two contacts) and the contact is completed, merged or created.
   */
  async sender(workspaceId: string, identity: WhatsAppIdentity, providerMessageId: string | null): Promise<Contact> {
    const match = await this.contacts.matchWhatsApp(workspaceId, identity);
    const known = match.byUser ?? match.byPhone;
    const oneContact = !match.byUser || !match.byPhone || match.byUser.id === match.byPhone.id;
    if (known && oneContact && this.contacts.knowsWhatsApp(known, identity)) return known;
    await this.contacts.lockWhatsApp(workspaceId, identity);
    const { byPhone, byUser } = await this.contacts.matchWhatsApp(workspaceId, identity);
    const actor = whatsAppActor(workspaceId);
    if (byPhone && byUser && byPhone.id !== byUser.id) {
      if (!byPhone.whatsAppUserId) return this.merge(actor, byUser, byPhone, identity, providerMessageId);
      // The number's contact is another WhatsApp user (a number given up and taken by someone else):
      // the BSUID says whose message this is; each contact keeps its number.
      return this.contacts.learnWhatsApp(actor, byUser, { ...identity, phoneNumber: null });
    }
    const found = byUser ?? byPhone;
    if (found) return this.contacts.learnWhatsApp(actor, found, identity);
    const created = await this.contacts.createForWhatsApp(actor, identity);
    if (created) return created;
    // Created meanwhile by a path that does not take these locks (Create Contact): it is there now.
    const after = await this.contacts.matchWhatsApp(workspaceId, identity);
    return (after.byUser ?? after.byPhone)!;
  }

  /**
   * A user a notification names without a message (the caller of a WhatsApp call, API.md §15): their
   * contact, known exactly as a message's sender is ({@link sender}), in a transaction of its own.
   */
  named(workspaceId: string, identity: WhatsAppIdentity): Promise<Contact> {
    return inTransaction(() => this.sender(workspaceId, identity, null));
  }

  /**
   * {@link sender} for the messages of a batch, in order, in the caller's transaction: one read for
   * all of them; a sender that is new, lacks an id or names two contacts takes the one-by-one path.
   */
  async senders(
    workspaceId: string,
    messages: ReadonlyArray<{ identity: WhatsAppIdentity; providerMessageId: string }>,
  ): Promise<Contact[]> {
    const known = await this.contacts.findWhatsAppCandidates(
      workspaceId,
      messages.map((m) => m.identity),
    );
    const found: Contact[] = [];
    for (const { identity, providerMessageId } of messages) {
      const { byPhone, byUser } = whatsAppMatchesAmong(known, identity);
      const match = byUser ?? byPhone;
      if (match && (!byUser || !byPhone || byUser.id === byPhone.id) && this.contacts.knowsWhatsApp(match, identity)) {
        found.push(match);
        continue;
      }
      const contact = await this.sender(workspaceId, identity, providerMessageId);
      // The contacts that path may have completed, merged away or created are read from its answer
      // from now on; earlier messages of a contact merged into this one are this one's now.
      const changed = new Set([byPhone?.id, byUser?.id, contact.id]);
      known.splice(0, known.length, ...known.filter((c) => !changed.has(c.id)), contact);
      const mergedAway = byPhone && byPhone.id !== contact.id && !byPhone.whatsAppUserId ? byPhone.id : null;
      for (let i = 0; i < found.length; i++) if (found[i].id === mergedAway) found[i] = contact;
      found.push(contact);
    }
    return found;
  }

  /**
   * Meta's `user_preferences`: the user stopped or resumed marketing messages. Their contact (found
   * by number and BSUID, created when there is none, so the choice is kept) takes the status, source
   * Provider, unless its consent was set after the notification's time.
   */
  async applyMarketingPreference(workspaceId: string, preference: MarketingPreference): Promise<void> {
    const identity: WhatsAppIdentity = {
      phoneNumber: preference.phoneNumber,
      userId: preference.userId,
      parentUserId: preference.parentUserId,
      profileName: preference.profileName,
    };
    await inTransaction(async () => {
      const contact = await this.sender(workspaceId, identity, null);
      await this.consents.set(whatsAppActor(workspaceId), contact.id, {
        whatsAppMarketing: { status: preference.status, source: 'Provider', at: new Date(preference.at), onlyIfNewer: true },
      });
    });
  }

  /** Meta refused a message with 131050 (the recipient stopped marketing messages): the contact is OptedOut, source Provider. */
  async providerOptedOut(workspaceId: string, contactId: string): Promise<void> {
    try {
      await this.consents.set(whatsAppActor(workspaceId), contactId, {
        whatsAppMarketing: { status: 'OptedOut', source: 'Provider' },
      });
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err; // the contact was deleted meanwhile
    }
  }

  /**
   * The contact a status names by BSUID learns it (`recipient_user_id` of a message sent to its
   * number), unless it has one or another contact holds it. One statement when there is nothing to learn.
   */
  @Transactional()
  async learnUserId(workspaceId: string, contactId: string, userId: string): Promise<void> {
    const { byUser } = await this.contacts.matchWhatsApp(workspaceId, { phoneNumber: null, userId });
    if (byUser) return;
    const contact = await this.contactRecords.findById(workspaceId, contactId);
    if (!contact || contact.whatsAppUserId) return;
    await this.contacts.lockWhatsApp(workspaceId, { phoneNumber: contact.phoneNumber, userId });
    if ((await this.contacts.matchWhatsApp(workspaceId, { phoneNumber: null, userId })).byUser) return;
    await this.contacts.learnWhatsApp(whatsAppActor(workspaceId), contact, { phoneNumber: null, userId });
  }

  /**
   * A change of a user's ids Meta reports: the contact known by the previous BSUID (else the
   * previous number) takes the new BSUID, parent BSUID and number. An id another contact holds is
   * left where it is; an update naming no contact we know changes nothing.
   */
  async applyIdentityUpdate(workspaceId: string, update: IdentityUpdate): Promise<void> {
    await inTransaction(async () => {
      const previous = { phoneNumber: update.previousNumber, userId: update.previousUserId };
      const next = { phoneNumber: update.phoneNumber, userId: update.userId };
      await this.contacts.lockWhatsApp(workspaceId, previous);
      await this.contacts.lockWhatsApp(workspaceId, next);
      const before = await this.contacts.matchWhatsApp(workspaceId, previous);
      const contact = before.byUser ?? before.byPhone;
      if (!contact) {
        this.logger.log(`An identity update names no contact of workspace ${workspaceId}; nothing to change`);
        return;
      }
      const holders = await this.contacts.matchWhatsApp(workspaceId, next);
      const free = (holder: Contact | null) => !holder || holder.id === contact.id;
      await this.contacts.learnWhatsApp(
        whatsAppActor(workspaceId),
        contact,
        {
          phoneNumber: free(holders.byPhone) ? update.phoneNumber : null,
          userId: free(holders.byUser) ? update.userId : null,
          parentUserId: update.parentUserId,
        },
        { replacePhoneNumber: true },
      );
    });
  }

  private async merge(
    actor: Actor,
    survivor: Contact,
    merged: Contact,
    identity: WhatsAppIdentity,
    providerMessageId: string | null,
  ): Promise<Contact> {
    const moved = await this.conversations.moveToContact(actor.workspaceId, merged.id, survivor.id);
    const absorbed = await this.contacts.absorb(actor, survivor, merged);
    await this.webhooks.emit(actor.workspaceId, WebhookEventType.ContactMerged, {
      contactId: absorbed.contact.id,
      name: absorbed.contact.name,
      phoneNumber: absorbed.contact.phoneNumber,
      whatsAppUserId: absorbed.contact.whatsAppUserId,
      mergedContactId: merged.id,
      mergedContactName: merged.name,
      reason: { kind: 'WhatsAppIdentity', providerMessageId },
      moved: {
        conversationIds: moved.conversationIds,
        events: moved.events,
        properties: absorbed.propertiesMoved,
        notes: absorbed.notesMoved,
        historyEntries: absorbed.historyMoved,
      },
    });
    this.logger.log(`Contact ${merged.id} merged into ${survivor.id} (workspace ${actor.workspaceId})`);
    // The survivor took the merged contact's number; the rest of what the message says (username, parent BSUID) follows.
    return this.contacts.learnWhatsApp(actor, absorbed.contact, { ...identity, phoneNumber: null });
  }
}
