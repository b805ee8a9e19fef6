import { Injectable } from '@nestjs/common';
import type { Principal } from '../../auth/principal.js';
import type { Channel } from '../../channels/channel.entity.js';
import { ChannelsService } from '../../channels/channels.service.js';
import { newId } from '../../common/id.js';
import { DomainError } from '../../common/errors/domain-error.js';
import { inLanes } from '../../common/batching/in-lanes.js';
import type { Contact } from '../../contacts/contact.entity.js';
import { MessageEvents } from '../../conversations/message-events.service.js';
import { ConversationsService } from '../../conversations/conversations.service.js';
import { TimelineService } from '../../conversations/timeline.service.js';
import { SendGovernor, type RecipientReservation } from '../../governor/send-governor.service.js';
import { Outbox, type OutboxEntry } from '../../queue/outbox.service.js';
import { JobName } from '../../queue/queue-names.js';
import type { FrequencyCap } from '../../send-policy/send-policy.entity.js';
import { FrequencyCapReached } from '../../send-policy/send-policy.errors.js';
import type { TemplateParameterDto } from '../dto/send-template.dto.js';
import { SendPolicyGate } from '../../send-policy/send-policy-gate.service.js';
import { labelOf, type Destination } from '../../send-policy/send-recipient.js';
import { addressed, addressOf, serviceWindowStart } from './addressing.js';
import { outboundEvent } from './outbound-event.js';
import { buildTemplateMessage, templateAttachment } from '../templates/template-message.js';
import type { WhatsAppTemplate } from '../templates/whatsapp-template.entity.js';
import { TemplatesService } from '../templates/templates.service.js';
import { inTransaction } from '../../database/transactions.js';

/** Recipients whose policy is checked at once (reads and a Redis call each). */
const CHECKS_AT_ONCE = 32;

const DAY_MS = 24 * 3600 * 1000;

/** Which template a batch sends, on which channel. */
export interface TemplateBatch {
  channelId: string;
  templateName: string;
  language: string;
  /** The campaign sending the batch: kept on each message, so its usage is counted to the campaign. */
  campaignId?: string;
}

/** One recipient of a batch: a contact of the workspace and its own template parameters. */
export interface TemplateBatchItem {
  contact: Contact;
  parameters: TemplateParameterDto[];
}

/** A send of the batch recorded (Pending, or Scheduled while it waits out quiet hours). */
export interface AcceptedSend {
  contactId: string;
  eventId: string;
  scheduled: boolean;
}

/** What became of one recipient: its send accepted, or refused with the error Send Template answers for it. */
export type TemplateBatchOutcome = ({ kind: 'accepted' } & AcceptedSend) | { kind: 'refused'; contactId: string; error: DomainError };

/** Runs in the batch's transaction with the sends it records (a campaign links its recipients there); throwing rolls them all back. */
export type BatchAcceptedHook = (accepted: AcceptedSend[]) => Promise<void>;

/** A recipient that passed the policy, ready to be recorded. */
interface Checked {
  contact: Contact;
  request: Record<string, unknown>;
  preview: string;
  dueAt: Date | null;
  cap: FrequencyCap | null;
  reservation: RecipientReservation | null;
}

/**
 * Send Template for a batch of contacts (a campaign's): each recipient is checked as Send Template
 * checks it (consent, quiet hours, frequency cap, messaging limit; a refusal is that recipient's
 * outcome, never the batch's), then all the accepted sends are recorded in ONE transaction, one
 * statement per kind (conversations found or opened, timeline events, conversation stamps, outbox
 * rows, the caller's hook), and their jobs pushed to Bull together once it commits.
 */
@Injectable()
export class TemplateBatchSender {
  constructor(
    private readonly channels: ChannelsService,
    private readonly templates: TemplatesService,
    private readonly policy: SendPolicyGate,
    private readonly events: MessageEvents,
    private readonly conversations: ConversationsService,
    private readonly timeline: TimelineService,
    private readonly outbox: Outbox,
    private readonly governor: SendGovernor,
  ) {}

  /** The outcome of each item, by contact id. Throws (nothing written, no place kept) only when the batch cannot be written. */
  async send(
    principal: Principal,
    batch: TemplateBatch,
    items: TemplateBatchItem[],
    onAccepted: BatchAcceptedHook,
  ): Promise<TemplateBatchOutcome[]> {
    const workspaceId = principal.workspaceId;
    const channel = await this.channels.getRecent(workspaceId, batch.channelId, 'whatsapp');
    const template = await this.templates.approved(channel, batch.templateName, batch.language);
    const contactIds = items.map((item) => item.contact.id);
    // A template to a contact who wrote in the last 24 h opens no business-initiated conversation: the messaging limit does not count it.
    const wrote = await this.events.withInboundWhatsAppSince(workspaceId, channel.id, contactIds, serviceWindowStart());
    const refused: TemplateBatchOutcome[] = [];
    let failure: { error: unknown } | undefined;
    const results = await inLanes(items, CHECKS_AT_ONCE, async (item) => {
      try {
        return await this.check(channel, template, item, !wrote.has(item.contact.id));
      } catch (error) {
        if (error instanceof DomainError) refused.push({ kind: 'refused', contactId: item.contact.id, error });
        else failure ??= { error };
        return null;
      }
    });
    const checked = results.filter((c): c is Checked => c !== null);
    const releaseAll = (sends: Checked[]) => Promise.all(sends.map((c) => c.reservation?.release()));
    if (failure) {
      // The database or Redis failed: the batch is not written, and the places it took are given back.
      await releaseAll(checked);
      throw failure.error;
    }
    let overCap: Checked[] = [];
    try {
      const accepted = await inTransaction(async () => {
        const cap = checked.find((c) => c.cap)?.cap ?? null;
        const [sendable, over] = cap ? await this.splitByCap(workspaceId, checked, cap) : [checked, []];
        overCap = over;
        return this.record(principal, channel, template, sendable, (jobs) => this.outbox.enqueue(jobs), onAccepted, batch.campaignId);
      });
      await releaseAll(overCap);
      const capRefusals = overCap.map((c): TemplateBatchOutcome => {
        const error = FrequencyCapReached(labelOf({ kind: 'contact', contact: c.contact }), c.cap!.marketingPerDays);
        return { kind: 'refused', contactId: c.contact.id, error };
      });
      return [...accepted.map((a): TemplateBatchOutcome => ({ kind: 'accepted', ...a })), ...refused, ...capRefusals];
    } catch (err) {
      // Nothing was written: the recipients this batch counted are not counted.
      await releaseAll(checked);
      throw err;
    }
  }

  /** One recipient through Send Template's policy; the template addressed to it, and its place in the messaging limit when it takes one. */
  private async check(
    channel: Readonly<Channel>,
    template: Readonly<WhatsAppTemplate>,
    item: TemplateBatchItem,
    businessInitiated: boolean,
  ): Promise<Checked> {
    const { request, preview } = buildTemplateMessage(template, undefined, item.parameters);
    const destination: Destination = { kind: 'contact', contact: item.contact };
    const marketing = template.category.toUpperCase() === 'MARKETING';
    const { dueAt, cap } = await this.policy.check(channel.workspaceId, destination, undefined, marketing);
    const address = addressOf(destination);
    // As for one send: a scheduled send is counted against the messaging limit when it leaves, not now.
    const reservation =
      businessInitiated && !dueAt
        ? await this.governor.reserveRecipient(channel, 'to' in address ? address.to : address.recipient, 'fail-fast')
        : null;
    return { contact: item.contact, request: addressed(request, address), preview, dueAt, cap, reservation };
  }

  /**
   * The frequency cap counted again in the batch's transaction, under the contacts' locks, as for
   * one send: those still under it, and those over it (a concurrent send got there first).
   */
  private async splitByCap(workspaceId: string, checked: Checked[], cap: FrequencyCap): Promise<[Checked[], Checked[]]> {
    const events = this.events;
    const capped = checked.filter((c) => c.cap);
    const ids = capped.map((c) => c.contact.id);
    await events.lockMarketingCounts(workspaceId, ids);
    const { count, days } = cap.marketingPerDays;
    const sent = await events.countMarketingSinceMany(workspaceId, ids, new Date(Date.now() - days * DAY_MS));
    const over = capped.filter((c) => (sent.get(c.contact.id) ?? 0) >= count);
    return [checked.filter((c) => !over.includes(c)), over];
  }

  /** The batch's sends in its transaction: conversations, events and stamps, outbox rows, then the hook. */
  private async record(
    principal: Principal,
    channel: Readonly<Channel>,
    template: Readonly<WhatsAppTemplate>,
    sendable: Checked[],
    enqueue: (jobs: OutboxEntry<JobName.SendWhatsAppMessage>[]) => Promise<unknown>,
    onAccepted: BatchAcceptedHook,
    campaignId?: string,
  ): Promise<AcceptedSend[]> {
    if (sendable.length === 0) return [];
    const { workspaceId } = principal;
    const attachment = { ...templateAttachment(template), ...(campaignId ? { campaignId } : {}) };
    const refs = await this.conversations.findOrOpenRefs(
      workspaceId,
      channel.id,
      sendable.map((c) => c.contact.id),
    );
    const entries = sendable.map((c) => ({
      id: newId(),
      conversation: refs.get(c.contact.id)!,
      input: outboundEvent(principal.name ?? null, c.preview, attachment, c.dueAt),
    }));
    await this.timeline.recordMany(entries);
    await enqueue(
      sendable.map((c, i) => ({
        jobName: JobName.SendWhatsAppMessage,
        workspaceId,
        runAt: c.dueAt,
        payload: { eventId: entries[i].id, channelId: channel.id, request: c.request, ...(c.dueAt ? { scheduled: true as const } : {}) },
      })),
    );
    const accepted = sendable.map((c, i) => ({ contactId: c.contact.id, eventId: entries[i].id, scheduled: c.dueAt !== null }));
    await onAccepted(accepted);
    return accepted;
  }
}
