import { Injectable } from '@nestjs/common';
import { ContactConsent } from '../contacts/contact-consent.service.js';
import { MessageEvents } from '../conversations/message-events.service.js';
import { labelOf, zoneSubjectOf, type Destination } from './send-recipient.js';
import type { FrequencyCap } from './send-policy.entity.js';
import { FrequencyCapReached, RecipientOptedOut } from './send-policy.errors.js';
import { SendPolicyService } from './send-policy.service.js';
import { SendScheduler } from './send-scheduler.service.js';

const DAY_MS = 24 * 3600 * 1000;

/**
 * The send policy a WhatsApp send passes before anything is written (API.md §13): consent, the
 * frequency cap, quiet hours and `sendAt`. Sends one at a time and the campaigns' batches ask it
 * the same way.
 */
@Injectable()
export class SendPolicyGate {
  constructor(
    private readonly policy: SendPolicyService,
    private readonly scheduler: SendScheduler,
    private readonly consents: ContactConsent,
    private readonly events: MessageEvents,
  ) {}

  /**
   * The send policy before anything is written (API.md §13): a marketing template is refused to a
   * contact opted out or over the frequency cap, and waits for the end of the contact's quiet
   * hours; any send waits for its `sendAt`. Returns when it is due (null: now). Only a marketing
   * send reads the policy.
   */
  async check(
    workspaceId: string,
    destination: Destination,
    sendAt: string | undefined,
    marketing: boolean,
  ): Promise<{ dueAt: Date | null; cap: FrequencyCap | null }> {
    const recipient = zoneSubjectOf(destination);
    if (!marketing) return { dueAt: await this.scheduler.dueAt(workspaceId, { scope: null, recipient, sendAt }), cap: null };
    await this.refuseOptedOut(workspaceId, destination);
    const settings = await this.policy.settings(workspaceId);
    const dueAt = await this.scheduler.dueAt(workspaceId, { scope: 'Marketing', recipient, sendAt }, settings);
    await this.refuseOverCap(workspaceId, destination, settings.frequencyCap);
    return { dueAt, cap: settings.frequencyCap };
  }

  /** A marketing template beyond the frequency cap for this contact is a 400 (a BSUID no contact has yet was sent nothing). */
  private async refuseOverCap(workspaceId: string, destination: Destination, cap: FrequencyCap | null): Promise<void> {
    if (!cap || destination.kind === 'new-user-id') return;
    const { count, days } = cap.marketingPerDays;
    const recipient = destination.kind === 'contact' ? { contactId: destination.contact.id } : { phoneNumber: destination.phoneNumber };
    const sent = await this.events.countMarketingSince(workspaceId, recipient, new Date(Date.now() - days * DAY_MS));
    if (sent >= count) throw FrequencyCapReached(labelOf(destination), cap.marketingPerDays);
  }

  /**
   * The cap counted again in the send's transaction, under the contact's lock, just before the send
   * is recorded: of two marketing sends at once, the second sees the first.
   */
  async refuseOverCapLocked(workspaceId: string, contactId: string, label: string, cap: FrequencyCap): Promise<void> {
    const events = this.events;
    await events.lockMarketingCount(workspaceId, contactId);
    const { count, days } = cap.marketingPerDays;
    const sent = await events.countMarketingSince(workspaceId, { contactId }, new Date(Date.now() - days * DAY_MS));
    if (sent >= count) throw FrequencyCapReached(label, cap.marketingPerDays);
  }

  /**
   * A marketing send to a contact opted out of WhatsApp marketing is a 400, before anything is
   * written. A contact named by id or BSUID is at hand; a number costs one indexed read.
   */
  private async refuseOptedOut(workspaceId: string, destination: Destination): Promise<void> {
    const status =
      destination.kind === 'contact'
        ? destination.contact.whatsAppMarketingConsent
        : destination.kind === 'phone'
          ? await this.consents.ofPhone(workspaceId, destination.phoneNumber, 'whatsAppMarketing')
          : 'Unknown';
    if (status === 'OptedOut') throw RecipientOptedOut(labelOf(destination));
  }
}
