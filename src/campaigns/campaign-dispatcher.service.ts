import { Injectable, Logger } from '@nestjs/common';
import type { Principal } from '../auth/principal.js';
import { DomainError } from '../common/errors/domain-error.js';
import { ContactPropertiesService } from '../contact-properties/contact-properties.service.js';
import { ContactsService } from '../contacts/contacts.service.js';
import { ContactPropertyValues } from '../contacts/contact-property-values.service.js';
import { Outbox } from '../queue/outbox.service.js';
import { JobName } from '../queue/queue-names.js';
import { TemplateBatchSender, type TemplateBatchItem, type TemplateBatchOutcome } from '../whatsapp/outbound/template-batch.service.js';
import { inLanes } from '../common/batching/in-lanes.js';
import { ContactNotFound } from '../contacts/contacts.errors.js';
import type { Contact } from '../contacts/contact.entity.js';
import { MESSAGING_LIMIT_REACHED } from '../governor/governor.errors.js';
import { OutboundIvrService } from '../outbound-ivr/outbound-ivr.service.js';
import type { Campaign, CampaignIvr, CampaignTemplate } from './campaign.entity.js';
import { EmptyPlaceholderError, fillParameters, propertyNames } from './campaign-parameters.js';
import { CampaignRecipientsRepository, type ClaimedRecipient, type RecipientSettlement } from './campaign-recipients.repository.js';
import { CampaignsRepository } from './campaigns.repository.js';
import { CampaignPacer } from './campaign-pacer.js';

/** The send errors that stop a whole template campaign, and the `pausedReason` each gives it. */
const TEMPLATE_PAUSE_REASONS: Partial<Record<string, string>> = {
  'WhatsApp:TemplateNotApproved': 'TemplateNotApproved',
  'WhatsApp:TemplateNotFound': 'TemplateNotFound',
};

/**
 * Recipients claimed at a time. A template batch is recorded in one transaction (a pause needs no
 * batch to end: the batch links its recipients only while the campaign is Running).
 */
const BATCH_SIZE = 200;
/** An IVR batch's calls placed at once (each is its own short transaction), and a template batch's contacts read at once. */
const SENDS_AT_ONCE = 8;
/** How long one dispatch job sends before handing over to the next (its successor job), so that a job never runs long. */
const JOB_BUDGET_MS = 3000;
/** When recipients are held by another dispatcher (or a dead one's claim has yet to lapse): look again after this. */
const RECHECK_HELD_MS = 10_000;
/** While accepted sends wait for the provider job (the governor's pace, a retry): look again after this. */
const RECHECK_QUEUED_MS = 1000;
/** While calls are under way (or await their redial): look again after this. */
const RECHECK_CALLS_MS = 3000;
/** While sends wait out quiet hours the campaign stays Running: look again after this. */
const RECHECK_WAITING_MS = 5 * 60_000;

/** While the campaign's queued sends are a full lead ahead of the channel's throughput (see CampaignPacer): look again after this. */
const PACE_WAIT_MS = 50;

/** A campaign's way of sending: how many recipients it may take now, and the sending of a claimed batch. */
interface Sender {
  room(): Promise<number>;
  send(batch: ClaimedRecipient[]): Promise<Outcome>;
}

/** Thrown inside the batch's transaction when a recipient cannot be linked to its send: the batch rolls back. */
class RecipientNotLinked extends Error {}

/** After one recipient: go on, stop the batch (paused or cancelled meanwhile), or stop and pause (the messaging limit is reached). */
type Outcome = 'next' | 'stop' | 'limit';

/**
 * Sends a Running campaign's recipients, a batch at a time: a template batch through
 * TemplateBatchSender (Send Template's checks for each recipient, so consent, quiet hours, the
 * frequency cap and the messaging limit apply; then the batch's sends recorded in one transaction),
 * linking the recipients to their sends in that transaction: a recipient linked is never sent
 * again, and one not linked was not sent. The governor paces the sends at the worker.
 */
@Injectable()
export class CampaignDispatcher {
  private readonly logger = new Logger(CampaignDispatcher.name);

  constructor(
    private readonly campaigns: CampaignsRepository,
    private readonly recipients: CampaignRecipientsRepository,
    private readonly contacts: ContactsService,
    private readonly propertyValues: ContactPropertyValues,
    private readonly properties: ContactPropertiesService,
    private readonly batchSender: TemplateBatchSender,
    private readonly outbox: Outbox,
    private readonly calls: OutboundIvrService,
    private readonly pacer: CampaignPacer,
  ) {}

  /**
   * One dispatch job: sends for up to {@link JOB_BUDGET_MS}, then queues its successor (or completes
   * the campaign). Claims go on from `after`, the last recipient claimed before (see
   * CampaignRecipientsRepository.claim); when none is left past it, they start over from the first.
   */
  async dispatch(workspaceId: string, campaignId: string, after: string | null): Promise<void> {
    const campaign = await this.campaigns.findById(workspaceId, campaignId);
    if (!campaign || !(await this.running(campaign))) return;
    const { room, send } = campaign.ivr ? this.callPlacer(campaign, campaign.ivr) : await this.templateSender(campaign, campaign.template!);
    const started = Date.now();
    while (Date.now() - started < JOB_BUDGET_MS) {
      if ((await this.campaigns.statusOf(workspaceId, campaignId)) !== 'Running') return this.pacer.forget(campaignId);
      const free = await room();
      if (free <= 0) {
        await new Promise((resolve) => setTimeout(resolve, PACE_WAIT_MS));
        continue;
      }
      const batch = await this.recipients.claim(workspaceId, campaignId, Math.min(BATCH_SIZE, free), after);
      if (batch.length === 0) {
        if (after === null) return this.finish(campaign);
        after = null;
        continue;
      }
      after = batch[batch.length - 1].contactId;
      // Giving the batch back touches only those still Pending: the ones sent or settled stay as they are.
      const giveBack = () =>
        this.recipients.release(
          workspaceId,
          campaignId,
          batch.map((r) => r.contactId),
        );
      let outcome: Outcome;
      try {
        outcome = await send(batch);
      } catch (err) {
        await giveBack();
        if (!(err instanceof DomainError)) throw err;
        const pausedReason = TEMPLATE_PAUSE_REASONS[err.code];
        if (!pausedReason) throw err;
        // Meta paused or disabled the template and no lifecycle webhook paused the campaign first (or it was resumed
        // since), or the template was deleted: every send would be refused, so the campaign pauses, saying why.
        this.logger.warn(`Campaign ${campaignId} paused: ${err.message}`);
        await this.campaigns.move(workspaceId, campaignId, ['Running'], { status: 'Paused', pausedReason });
        return this.pacer.forget(campaignId);
      }
      if (outcome === 'limit') {
        // Paused once the batch's sends under way have ended, so that those holding a place are linked, not rolled back.
        this.logger.warn(`Campaign ${campaignId} paused: the channel's messaging limit is reached`);
        await this.campaigns.move(workspaceId, campaignId, ['Running'], { status: 'Paused', pausedReason: 'MessagingLimitReached' });
      }
      if (outcome !== 'next') {
        this.pacer.forget(campaignId);
        return giveBack();
      }
    }
    await this.next(workspaceId, campaignId, null, after);
  }

  /** True when the campaign is Running; a Scheduled one whose time has come starts running here. */
  private async running(campaign: Campaign): Promise<boolean> {
    if (campaign.status === 'Running') return true;
    if (campaign.status !== 'Scheduled' || (campaign.scheduledAt && campaign.scheduledAt.getTime() > Date.now())) return false;
    return this.campaigns.move(campaign.workspaceId, campaign.id, ['Scheduled'], { status: 'Running', startedAt: new Date() });
  }

  /**
   * Sends a batch of recipients: the template with each one's placeholders filled from its contact,
   * through TemplateBatchSender (Send Template's checks for each recipient, then one transaction for
   * the batch, in which the recipients are linked to their sends). Refusals end the recipient (opted
   * out: SkippedOptedOut; another rule: Failed with its code); the messaging limit leaves the
   * recipient Pending and has the dispatcher pause the campaign.
   */
  private async templateSender(campaign: Campaign, template: CampaignTemplate): Promise<Sender> {
    const { workspaceId, id: campaignId } = campaign;
    const principal = this.principalOf(campaign);
    const definitions = await this.propertyDefinitions(workspaceId, template);
    const sends = { channelId: campaign.channelId, templateName: template.templateName, language: template.language, campaignId };
    const send = async (batch: ClaimedRecipient[]): Promise<Outcome> => {
      const { items, settlements } = await this.itemsOf(workspaceId, template, definitions, batch);
      let outcomes: TemplateBatchOutcome[];
      try {
        outcomes = await this.batchSender.send(principal, sends, items, async (accepted) => {
          const linked = await this.recipients.linkMany(workspaceId, campaignId, accepted);
          if (linked.size < accepted.length) throw new RecipientNotLinked();
          this.pacer.accepted(
            campaignId,
            accepted.map((a) => a.eventId),
          );
        });
      } catch (err) {
        if (!(err instanceof RecipientNotLinked)) throw err;
        await this.recipients.settleMany(workspaceId, campaignId, settlements);
        return 'stop'; // paused or cancelled meanwhile: nothing of the batch was sent
      }
      let limit = false;
      for (const outcome of outcomes) {
        if (outcome.kind === 'accepted') continue;
        const { code } = outcome.error;
        if (code === MESSAGING_LIMIT_REACHED) limit = true;
        else if (code === 'WhatsApp:RecipientOptedOut')
          settlements.push({ contactId: outcome.contactId, status: 'SkippedOptedOut', errorCode: null });
        else settlements.push({ contactId: outcome.contactId, status: 'Failed', errorCode: code });
      }
      await this.recipients.settleMany(workspaceId, campaignId, settlements);
      return limit ? 'limit' : 'next';
    };
    return { room: () => this.pacer.room(campaign), send };
  }

  /**
   * The batch's recipients as sends (their contacts read in one statement, the template's
   * placeholders filled), and those that cannot be sent: a contact gone, an empty placeholder.
   */
  private async itemsOf(
    workspaceId: string,
    template: CampaignTemplate,
    definitions: Map<string, string>,
    batch: ClaimedRecipient[],
  ): Promise<{ items: TemplateBatchItem[]; settlements: RecipientSettlement[] }> {
    const contacts = new Map(
      (
        await this.contacts.findByIds(
          workspaceId,
          batch.map((r) => r.contactId),
        )
      ).map((contact) => [contact.id, contact]),
    );
    const settlements: RecipientSettlement[] = [];
    const items = await inLanes(batch, SENDS_AT_ONCE, async ({ contactId }): Promise<TemplateBatchItem | null> => {
      const contact = contacts.get(contactId);
      if (!contact) {
        settlements.push({ contactId, status: 'Failed', errorCode: ContactNotFound(contactId).code });
        return null;
      }
      try {
        return { contact, parameters: fillParameters(template, await this.fieldsOf(workspaceId, contact, definitions)) };
      } catch (err) {
        if (!(err instanceof EmptyPlaceholderError)) throw err;
        settlements.push({ contactId, status: 'Failed', errorCode: 'Campaigns:EmptyPlaceholder' });
        return null;
      }
    });
    return { items: items.filter((item): item is TemplateBatchItem => item !== null), settlements };
  }

  /**
   * Calls one recipient through Create Outbound IVR's path (consent, quiet hours, the channel's
   * limits, a WhatsApp user's call permission apply there), at its number or, over WhatsApp, its
   * BSUID. The externalId names the recipient and the attempt: a retry after a crash
   * gets the same call back, never a second one.
   */
  private callPlacer(campaign: Campaign, ivr: CampaignIvr): Sender {
    const { workspaceId, id: campaignId } = campaign;
    const principal = this.principalOf(campaign);
    const call = async ({ contactId, phoneNumber, whatsAppUserId, attempts }: ClaimedRecipient): Promise<void> => {
      try {
        const placed = await this.calls.create(principal, {
          ...ivr,
          channelId: campaign.channelId,
          // A contact without a number is Pending only where the call goes over WhatsApp: called by its BSUID.
          destinationNumber: (phoneNumber ?? whatsAppUserId)!,
          externalId: `campaign:${campaignId}:${contactId}:${attempts + 1}`,
        });
        await this.recipients.linkCall(workspaceId, campaignId, contactId, placed.id);
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        const status = err.code === 'OutboundIvr:RecipientOptedOut' ? 'SkippedOptedOut' : 'Failed';
        await this.recipients.settle(workspaceId, campaignId, contactId, status, status === 'Failed' ? err.code : null);
      }
    };
    // Calls are paced where they are placed (the channel's calls per second and concurrent calls).
    const room = () => Promise.resolve(BATCH_SIZE);
    const send = async (batch: ClaimedRecipient[]): Promise<Outcome> => {
      await inLanes(batch, SENDS_AT_ONCE, call);
      return 'next';
    };
    return { room, send };
  }

  /** Who the campaign's sends are made as: the service account that created it. */
  private principalOf(campaign: Campaign): Principal {
    return {
      serviceAccountId: campaign.creatorId ?? '',
      workspaceId: campaign.workspaceId,
      scopes: [],
      name: campaign.creatorName ?? undefined,
    };
  }

  /** The definitions of the properties the template names, by lower-cased name. */
  private async propertyDefinitions(workspaceId: string, template: CampaignTemplate): Promise<Map<string, string>> {
    const named = new Set(propertyNames(template).map((name) => name.toLowerCase()));
    if (named.size === 0) return new Map();
    const all = await this.properties.list(workspaceId);
    return new Map(all.filter((d) => named.has(d.name.toLowerCase())).map((d) => [d.name.toLowerCase(), d.id]));
  }

  private async fieldsOf(workspaceId: string, contact: Contact, definitions: Map<string, string>) {
    const values = new Map<string, string | null>();
    for (const [name, definitionId] of definitions)
      values.set(
        name,
        await this.propertyValues.textOf(workspaceId, { contactId: contact.id, phoneNumber: contact.phoneNumber }, definitionId),
      );
    return { name: contact.name, company: contact.company, property: (name: string) => values.get(name.toLowerCase()) ?? null };
  }

  /**
   * No recipient to claim: Completed when none is Pending, every send has left for the provider and
   * none waits out quiet hours;
   * otherwise looks again later (a claim held by a dispatcher that died lapses).
   */
  private async finish(campaign: Campaign): Promise<void> {
    const { workspaceId, id } = campaign;
    if (campaign.redial && (await this.recipients.requeueRedials(workspaceId, id, campaign.redial)) > 0)
      return this.next(workspaceId, id, null);
    if ((await this.recipients.pendingCount(workspaceId, id)) > 0) return this.next(workspaceId, id, RECHECK_HELD_MS);
    // Completed means every message left: sends still queued (or retried after a worker died) keep it Running.
    if ((await this.recipients.queuedEventIds(workspaceId, id)).length > 0) return this.next(workspaceId, id, RECHECK_QUEUED_MS);
    if ((await this.recipients.waitingEventIds(workspaceId, id)).length > 0) return this.next(workspaceId, id, RECHECK_WAITING_MS);
    if (campaign.ivr && (await this.recipients.callsOutstanding(workspaceId, id, campaign.redial)) > 0)
      return this.next(workspaceId, id, RECHECK_CALLS_MS);
    this.pacer.forget(id);
    await this.campaigns.move(workspaceId, id, ['Running'], { status: 'Completed', completedAt: new Date() });
  }

  /** Queues the campaign's next dispatch job (through the outbox, like every job), after `delayMs` or at once, going on after `after`. */
  private async next(workspaceId: string, campaignId: string, delayMs: number | null, after: string | null = null): Promise<void> {
    const runAt = delayMs === null ? null : new Date(Date.now() + delayMs);
    const payload = after === null ? { campaignId } : { campaignId, after };
    await this.outbox.enqueue([{ jobName: JobName.DispatchCampaign, workspaceId, runAt, payload }]);
  }
}
