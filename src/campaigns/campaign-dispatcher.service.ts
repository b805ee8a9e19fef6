import { Injectable, Logger } from '@nestjs/common';
import type { Principal } from '../auth/principal.js';
import { DomainError } from '../common/errors/domain-error.js';
import { ContactPropertiesService } from '../contact-properties/contact-properties.service.js';
import { ContactsService } from '../contacts/contacts.service.js';
import { Outbox } from '../queue/outbox.service.js';
import { JobName } from '../queue/queue-names.js';
import { MessagingService } from '../whatsapp/messaging.service.js';
import { MESSAGING_LIMIT_REACHED } from '../whatsapp/whatsapp.errors.js';
import { OutboundIvrService } from '../outbound-ivr/outbound-ivr.service.js';
import type { Campaign, CampaignIvr, CampaignTemplate } from './campaign.entity.js';
import { EmptyPlaceholderError, fillParameters, propertyNames } from './campaign-parameters.js';
import { CampaignRecipientsRepository, type ClaimedRecipient } from './campaign-recipients.repository.js';
import { CampaignsRepository } from './campaigns.repository.js';

/** Recipients claimed at a time (a pause needs no batch to end: each send is linked only while the campaign is Running). */
const BATCH_SIZE = 40;
/** A batch's sends made at once: each is its own short transaction, so a few overlap their round trips to the database. */
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

/** Thrown inside the send's transaction when the recipient cannot be linked to it: the send rolls back. */
class RecipientNotLinked extends Error {}

/** After one recipient: go on, stop the batch (paused or cancelled meanwhile), or stop and pause (the messaging limit is reached). */
type Outcome = 'next' | 'stop' | 'limit';

/**
 * Sends a Running campaign's recipients, a batch at a time, each through Send Template's own path
 * (so consent, quiet hours, the frequency cap and the governor apply), linking the recipient to its
 * send in the transaction that records it: a recipient linked is never sent again, and one not
 * linked was not sent.
 */
@Injectable()
export class CampaignDispatcher {
  private readonly logger = new Logger(CampaignDispatcher.name);

  constructor(
    private readonly campaigns: CampaignsRepository,
    private readonly recipients: CampaignRecipientsRepository,
    private readonly contacts: ContactsService,
    private readonly properties: ContactPropertiesService,
    private readonly messaging: MessagingService,
    private readonly outbox: Outbox,
    private readonly calls: OutboundIvrService,
  ) {}

  /** One dispatch job: sends for up to {@link JOB_BUDGET_MS}, then queues its successor (or completes the campaign). */
  async dispatch(workspaceId: string, campaignId: string): Promise<void> {
    const campaign = await this.campaigns.findById(workspaceId, campaignId);
    if (!campaign || !(await this.running(campaign))) return;
    const send = campaign.ivr ? this.callPlacer(campaign, campaign.ivr) : await this.templateSender(campaign, campaign.template!);
    const started = Date.now();
    while (Date.now() - started < JOB_BUDGET_MS) {
      if ((await this.campaigns.statusOf(workspaceId, campaignId)) !== 'Running') return;
      const batch = await this.recipients.claim(workspaceId, campaignId, BATCH_SIZE);
      if (batch.length === 0) return this.finish(campaign);
      // Giving the batch back touches only those still Pending: the ones sent or settled stay as they are.
      const giveBack = () =>
        this.recipients.release(
          workspaceId,
          campaignId,
          batch.map((r) => r.contactId),
        );
      let outcome: Outcome;
      try {
        outcome = await this.sendBatch(batch, send);
      } catch (err) {
        await giveBack();
        throw err;
      }
      if (outcome === 'limit') {
        // Paused once the batch's sends under way have ended, so that those holding a place are linked, not rolled back.
        this.logger.warn(`Campaign ${campaignId} paused: the channel's messaging limit is reached`);
        await this.campaigns.move(workspaceId, campaignId, ['Running'], { status: 'Paused', pausedReason: 'MessagingLimitReached' });
      }
      if (outcome !== 'next') return giveBack();
    }
    await this.next(workspaceId, campaignId, null);
  }

  /**
   * Sends a claimed batch, {@link SENDS_AT_ONCE} at a time. After the first 'stop' or error no
   * further send starts; an error is thrown once the sends under way have ended.
   */
  private async sendBatch(batch: ClaimedRecipient[], send: (recipient: ClaimedRecipient) => Promise<Outcome>): Promise<Outcome> {
    const queue = [...batch];
    const ends = new Set<Outcome>();
    let failure: { error: unknown } | undefined;
    const lane = async () => {
      for (let next = queue.shift(); next && !ends.has('stop') && !ends.has('limit') && !failure; next = queue.shift()) {
        try {
          ends.add(await send(next));
        } catch (error) {
          failure ??= { error };
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(SENDS_AT_ONCE, batch.length) }, lane));
    if (failure) throw failure.error;
    return ends.has('limit') ? 'limit' : ends.has('stop') ? 'stop' : 'next';
  }

  /** True when the campaign is Running; a Scheduled one whose time has come starts running here. */
  private async running(campaign: Campaign): Promise<boolean> {
    if (campaign.status === 'Running') return true;
    if (campaign.status !== 'Scheduled' || (campaign.scheduledAt && campaign.scheduledAt.getTime() > Date.now())) return false;
    return this.campaigns.move(campaign.workspaceId, campaign.id, ['Scheduled'], { status: 'Running', startedAt: new Date() });
  }

  /**
   * Sends one recipient: the template with its placeholders filled from the contact, through
   * MessagingService.sendTemplate, which runs the link in its own transaction. Refusals end the
   * recipient (opted out: SkippedOptedOut; another rule: Failed with its code); the messaging limit
   * leaves the recipient Pending and has the dispatcher pause the campaign.
   */
  private async templateSender(campaign: Campaign, template: CampaignTemplate): Promise<(recipient: ClaimedRecipient) => Promise<Outcome>> {
    const { workspaceId, id: campaignId } = campaign;
    const principal: Principal = {
      serviceAccountId: campaign.creatorId ?? '',
      workspaceId,
      scopes: [],
      name: campaign.creatorName ?? undefined,
    };
    const definitions = await this.propertyDefinitions(workspaceId, template);
    return async ({ contactId }) => {
      try {
        const parameters = fillParameters(template, await this.fieldsOf(workspaceId, contactId, definitions));
        const input = {
          channelId: campaign.channelId,
          contactId,
          templateName: template.templateName,
          language: template.language,
          parameters,
        };
        await this.messaging.sendTemplate(principal, input, async (manager, accepted) => {
          if (!(await this.recipients.withManager(manager).link(workspaceId, campaignId, contactId, accepted.eventId, accepted.scheduled)))
            throw new RecipientNotLinked();
        });
        return 'next';
      } catch (err) {
        if (err instanceof RecipientNotLinked) return 'stop'; // paused or cancelled meanwhile: nothing was sent
        if (err instanceof EmptyPlaceholderError) {
          await this.recipients.settle(workspaceId, campaignId, contactId, 'Failed', 'Campaigns:EmptyPlaceholder');
          return 'next';
        }
        if (!(err instanceof DomainError)) throw err;
        if (err.code === MESSAGING_LIMIT_REACHED) return 'limit';
        const status = err.code === 'WhatsApp:RecipientOptedOut' ? 'SkippedOptedOut' : 'Failed';
        await this.recipients.settle(workspaceId, campaignId, contactId, status, status === 'Failed' ? err.code : null);
        return 'next';
      }
    };
  }

  /**
   * Calls one recipient through Create Outbound IVR's path (consent, quiet hours, the channel's
   * limits apply there). The externalId names the recipient and the attempt: a retry after a crash
   * gets the same call back, never a second one.
   */
  private callPlacer(campaign: Campaign, ivr: CampaignIvr): (recipient: ClaimedRecipient) => Promise<Outcome> {
    const { workspaceId, id: campaignId } = campaign;
    const principal = this.principalOf(campaign);
    return async ({ contactId, phoneNumber, attempts }) => {
      try {
        const call = await this.calls.create(principal, {
          ...ivr,
          channelId: campaign.channelId,
          destinationNumber: phoneNumber,
          externalId: `campaign:${campaignId}:${contactId}:${attempts + 1}`,
        });
        await this.recipients.linkCall(workspaceId, campaignId, contactId, call.id);
        return 'next';
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        const status = err.code === 'OutboundIvr:RecipientOptedOut' ? 'SkippedOptedOut' : 'Failed';
        await this.recipients.settle(workspaceId, campaignId, contactId, status, status === 'Failed' ? err.code : null);
        return 'next';
      }
    };
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

  private async fieldsOf(workspaceId: string, contactId: string, definitions: Map<string, string>) {
    const contact = await this.contacts.get(workspaceId, contactId);
    const values = new Map<string, string | null>();
    for (const [name, definitionId] of definitions)
      values.set(name, await this.contacts.propertyText(workspaceId, { contactId, phoneNumber: contact.phoneNumber }, definitionId));
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
    if ((await this.recipients.queuedSendCount(workspaceId, id)) > 0) return this.next(workspaceId, id, RECHECK_QUEUED_MS);
    if ((await this.recipients.waitingEventIds(workspaceId, id)).length > 0) return this.next(workspaceId, id, RECHECK_WAITING_MS);
    if (campaign.ivr && (await this.recipients.callsOutstanding(workspaceId, id, campaign.redial)) > 0)
      return this.next(workspaceId, id, RECHECK_CALLS_MS);
    await this.campaigns.move(workspaceId, id, ['Running'], { status: 'Completed', completedAt: new Date() });
  }

  /** Queues the campaign's next dispatch job (through the outbox, like every job), after `delayMs` or at once. */
  private async next(workspaceId: string, campaignId: string, delayMs: number | null): Promise<void> {
    const runAt = delayMs === null ? null : new Date(Date.now() + delayMs);
    await this.outbox.transaction((tx) => tx.enqueue([{ jobName: JobName.DispatchCampaign, workspaceId, runAt, payload: { campaignId } }]));
  }
}
