import { Injectable } from '@nestjs/common';
import { ChannelsService } from '../channels/channels.service.js';
import { MessageEvents } from '../conversations/message-events.service.js';
import { SendGovernor } from '../governor/send-governor.service.js';
import type { Campaign } from './campaign.entity.js';
import { CampaignRecipientsRepository } from './campaign-recipients.repository.js';

/**
 * How far ahead of its channel's throughput a campaign's accepted sends may run, in seconds of the
 * tier. Sends accepted leave even when the campaign is paused, so this bounds how long a pause takes
 * to stop new sends (API.md §13: within a second), and keeps the queue short.
 */
const LEAD_SECONDS = 1;
/** Campaigns whose queued sends are remembered; beyond this (many campaigns at once) they are read again. */
const MAX_REMEMBERED = 1000;

/**
 * Keeps a template campaign's dispatcher about {@link LEAD_SECONDS} ahead of the governor rather
 * than queuing its whole audience at once: it remembers the campaign's sends still Pending (read
 * from the recipients once per process, then only those ids are looked at again).
 */
@Injectable()
export class CampaignPacer {
  private readonly queued = new Map<string, string[]>();

  constructor(
    private readonly recipients: CampaignRecipientsRepository,
    private readonly events: MessageEvents,
    private readonly channels: ChannelsService,
    private readonly governor: SendGovernor,
  ) {}

  /** How many more sends the campaign may accept now (0 or less: none until some of its queued sends have left). */
  async room(campaign: Campaign): Promise<number> {
    const { workspaceId, id } = campaign;
    const throughput = await this.governor.throughput(await this.channels.getRecent(workspaceId, campaign.channelId));
    const known = this.queued.get(id);
    const queued = known ? await this.events.stillPending(workspaceId, known) : await this.recipients.queuedEventIds(workspaceId, id);
    if (!known && this.queued.size >= MAX_REMEMBERED) this.queued.clear();
    this.queued.set(id, queued);
    return Math.ceil(throughput * LEAD_SECONDS) - queued.length;
  }

  /** Sends the campaign has just accepted (a batch that rolls back leaves ids no event has: they are dropped at the next look). */
  accepted(campaignId: string, eventIds: string[]): void {
    // Nothing remembered (never looked at, or forgotten): the next look reads them all from the recipients.
    this.queued.get(campaignId)?.push(...eventIds);
  }

  /** The campaign stops dispatching (paused, cancelled, done): what is remembered of it is read again if it resumes. */
  forget(campaignId: string): void {
    this.queued.delete(campaignId);
  }
}
