import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable, Logger } from '@nestjs/common';
import type { Channel } from '../../channels/channel.entity.js';
import { ChannelsService } from '../../channels/channels.service.js';
import { DomainError, NotFoundError } from '../../common/errors/domain-error.js';
import { newId } from '../../common/id.js';
import { MessageEvents } from '../../conversations/message-events.service.js';
import {
  CLOUD_PAIR_RATE_REACHED,
  CLOUD_THROUGHPUT_REACHED,
  SendGovernor,
  type ReservedStart,
} from '../../governor/send-governor.service.js';
import { Outbox } from '../../queue/outbox.service.js';
import { JobName } from '../../queue/queue-names.js';
import { RetryLaterError } from '../../queue/retry-later.js';
import { withProviderMediaId } from './free-form-message.js';
import { NO_PROVIDER_OUTCOME } from './outbound-event.js';
import { UNAUTHORIZED } from '../providers/cloud-api-errors.js';
import { CloudApiWhatsAppProvider } from '../providers/cloud-api.provider.js';
import { SandboxWhatsAppProvider } from '../providers/sandbox.provider.js';
import type { FinalSendOutcome, MarkReadOutcome, SendOutcome, WhatsAppProvider } from '../providers/whatsapp-provider.js';
import { SEND_CLAIM_LEASE_MS, SendClaimsRepository, type SendClaimResult } from './send-claims.repository.js';
import { StatementBatcher } from '../../common/batching/statement-batcher.js';
import { StatusService, type StatusChange } from './status.service.js';
import { WhatsAppMediaService } from './whatsapp-media.service.js';
import { MESSAGING_LIMIT_REACHED } from '../../governor/governor.errors.js';
import { recipientOf, serviceWindowStart } from './addressing.js';

/**
 * The longest a send job sleeps in process before asking the governor again. Waiting holds one of
 * the worker's job slots, so only short waits are slept; a longer one (a pair-rate wait of up to
 * 6 s, a long line at a low tier) puts the job back in the queue, due when the governor said, and
 * frees the slot for other channels and recipients. A start the governor reserved (at most
 * a second ahead, `RESERVATION_HORIZON_MS`) is always waited for in process.
 */
const MAX_IN_PROCESS_WAIT_MS = 1000;

/**
 * The worker's side of a WhatsApp send: it claims the message, takes the governor's turn, asks the
 * channel's provider once (never twice, whatever dies meanwhile) and records Sent or Failed,
 * retrying passing failures. The request path is {@link SendAcceptance}.
 */
@Injectable()
export class SendDelivery {
  private readonly logger = new Logger(SendDelivery.name);
  /** The worker's claims, those asked while a claiming statement runs made together in the next ({@link SendClaimsRepository.claimMany}). */
  private readonly claims = new StatementBatcher<SendClaimRun, SendClaimResult>((runs) => this.claimTogether(runs), CLAIM_BATCH);

  constructor(
    private readonly channels: ChannelsService,
    private readonly events: MessageEvents,
    private readonly outbox: Outbox,
    private readonly sandbox: SandboxWhatsAppProvider,
    private readonly cloudApi: CloudApiWhatsAppProvider,
    private readonly statuses: StatusService,
    private readonly media: WhatsAppMediaService,
    private readonly governor: SendGovernor,
    private readonly sendClaims: SendClaimsRepository,
  ) {}

  /**
   * Worker: sends a Pending event through its channel's provider, once. A passing provider failure
   * throws RetryLaterError (Bull tries again, not before the provider's Retry-After); on the last
   * attempt it ends the event Failed like a permanent one. With `media`, the file is uploaded to
   * the provider first (once per channel and file) and sent by the provider's id.
   */
  async deliver(
    workspaceId: string,
    eventId: string,
    channelId: string,
    request: Record<string, unknown>,
    attempt: DeliveryAttempt,
  ): Promise<void> {
    const asksProvider = !attempt.earlierOutcome && !attempt.interrupted;
    // The status decides up front only for a scheduled send (due now, or cancelled) and a run that asks nothing;
    // a run that asks reads it with its claim (askInTurn), one statement fewer for every send.
    if ((attempt.scheduled || !asksProvider) && !(await this.pendingNow(workspaceId, eventId, channelId, request))) return;
    const recipient = recipientOf(request);
    const governed = await this.channelOrNull(this.channels.getRecent(workspaceId, channelId));
    const asked: AskedProvider | null = asksProvider
      ? await this.askInTurn(workspaceId, channelId, eventId, request, governed, attempt)
      : { channel: governed, outcome: attempt.earlierOutcome ?? SEND_INTERRUPTED };
    if (!asked) return; // not Pending (another run of this send finished it, or it was cancelled), or back in the queue
    const { channel, outcome } = asked;
    if (outcome.kind === 'retry' && !attempt.lastAttempt) {
      if (asked.holder) await this.sendClaims.release(workspaceId, eventId, asked.holder);
      // Meta's own rate limits: the governor slows the channel (130429) or holds the pair (131056), and the message waits at least that long.
      const rateLimited = outcome.cloudErrorCode === CLOUD_THROUGHPUT_REACHED || outcome.cloudErrorCode === CLOUD_PAIR_RATE_REACHED;
      const holdMs =
        rateLimited && governed && recipient ? await this.governor.rateLimited(governed, recipient, outcome.cloudErrorCode) : 0;
      throw new RetryLaterError(
        `WhatsApp provider: ${outcome.errorCode} ${outcome.failureReason}`,
        Math.max(outcome.retryAfterMs ?? 0, holdMs) || undefined,
      );
    }
    const final: FinalSendOutcome = outcome.kind === 'retry' ? { ...outcome, kind: 'failed' } : outcome;
    const change: StatusChange =
      final.kind === 'sent'
        ? { status: 'Sent', providerMessageId: final.providerMessageId, errorCode: null, errorReason: null }
        : { status: 'Failed', providerMessageId: null, errorCode: final.errorCode, errorReason: final.failureReason };
    try {
      await this.statuses.recordSendOutcome(workspaceId, channel, eventId, change);
    } catch (err) {
      // The provider has answered but the status is not written (the database is out of reach): the retry records this answer.
      if (!attempt.earlierOutcome) await attempt.keepOutcome(final).catch(() => undefined);
      throw err;
    }
    if (final.kind !== 'sent') this.logger.warn(`WhatsApp message ${eventId} failed: ${final.errorCode} ${final.failureReason}`);
  }

  /**
   * Whether the message is Pending now. A scheduled send now due moves to Pending here (a
   * cancellation that came first wins, and nothing leaves), and a template is admitted against the
   * messaging limit when it leaves; one already sent (a retried job), cancelled or gone is not.
   */
  private async pendingNow(workspaceId: string, eventId: string, channelId: string, request: Record<string, unknown>): Promise<boolean> {
    const status = await this.events.statusOf(workspaceId, eventId);
    if (status !== 'Scheduled') return status === 'Pending';
    const [moved] = await this.events.moveOutboundStatus(workspaceId, { eventId }, NO_PROVIDER_OUTCOME('Pending'), ['Scheduled']);
    if (!moved) return false;
    return request.type !== 'template' || this.admitScheduledTemplate(workspaceId, eventId, channelId, request);
  }

  /**
   * One run of a send that asks the provider: claims the message ({@link SendClaimsRepository.claim},
   * reading its status), takes the governor's turn for the channel and recipient (a start reserved
   * up to a second ahead), waits for that start, marks the job as asking the provider in this
   * attempt, then asks, spaced from this process's last send on the channel when it came late (see
   * `SendGovernor.spaceFromLastSend`), so the provider sees the sends spaced about as the governor
   * planned them.
   *
   * A worker that dies while the provider is asked (`kill -9`, a lost machine) leaves the mark, and
   * the run that takes the stalled job over ends the message {@link SEND_INTERRUPTED} instead of
   * asking again: the Cloud API has no idempotency key, so whether the first request got through
   * cannot be known, and a message is never sent twice. One that dies before the mark leaves only
   * its claim, under the name of this attempt of this job (`attempt.run`), and the run taking the
   * job over, finding its own name, takes the claim over and asks. A long governor wait gives the
   * claim up and puts the job back in the queue (null then); so does an error before the provider
   * answered, for the next attempt.
   */
  private async askInTurn(
    workspaceId: string,
    channelId: string,
    eventId: string,
    request: Record<string, unknown>,
    governed: Readonly<Channel> | null,
    attempt: DeliveryAttempt,
  ): Promise<AskedProvider | null> {
    const run = attempt.run ?? newId();
    let claim = await this.claims.add({ workspaceId, eventId, holder: run });
    if (claim.status === 'Scheduled') {
      // A job queued without its `scheduled` flag (by a version before it): the same steps as with it, then the claim.
      if (!(await this.pendingNow(workspaceId, eventId, channelId, request))) return null;
      claim = await this.claims.add({ workspaceId, eventId, holder: run });
    }
    if (claim.status !== 'Pending') return null;
    if (claim.holder !== run) {
      this.waitForClaimHolder(claim.since, attempt.lastAttempt);
      return { channel: governed, outcome: SEND_INTERRUPTED };
    }
    const release = () => this.sendClaims.release(workspaceId, eventId, run);
    try {
      const recipient = recipientOf(request);
      const turn = governed && recipient ? await this.governorTurn(governed, recipient) : null;
      if (turn && 'comeBackInMs' in turn) {
        await release();
        const payload = { eventId, channelId, request, ...(attempt.media ? { media: attempt.media } : {}) };
        const runAt = new Date(Date.now() + turn.comeBackInMs);
        await this.outbox.enqueue([{ jobName: JobName.SendWhatsAppMessage, workspaceId, runAt, payload }]);
        return null;
      }
      // Marked only once its start is due: a worker that dies while waiting for it leaves a send that was never asked.
      if (turn) await this.governor.waitForStart(turn);
      await attempt.markSending();
      // After the mark (which may wait for one of the worker's provider calls to end), so nothing bunches the requests after it.
      if (turn) await this.governor.spaceFromLastSend(channelId, turn);
      const asked = await this.withFreshCredentials(workspaceId, channelId, (current) => this.sendThrough(current, request, attempt.media));
      return { ...asked, holder: run };
    } catch (err) {
      await release().catch(() => undefined);
      throw err;
    }
  }

  /** Claims of runs asked together, one statement a workspace; a result each, in order. */
  /**
   * One claim statement per workspace, each committed on its own: a statement that fails rejects
   * only its own workspace's runs, never those whose claims another statement already committed
   * (failed, those would retry under a new holder and find their own claim held).
   */
  private async claimTogether(runs: readonly SendClaimRun[]): Promise<Array<SendClaimResult | Error>> {
    const results = new Map<SendClaimRun, SendClaimResult | Error>();
    for (const workspaceId of new Set(runs.map((run) => run.workspaceId))) {
      const group = runs.filter((run) => run.workspaceId === workspaceId);
      try {
        const claimed = await this.sendClaims.claimMany(workspaceId, group);
        group.forEach((run, i) => results.set(run, claimed[i]));
      } catch (err) {
        const error = err instanceof Error ? err : new Error(String(err));
        group.forEach((run) => results.set(run, error));
      }
    }
    return runs.map((run) => results.get(run)!);
  }

  /**
   * The database's side of "never sent twice": the Redis mark (see askInTurn) covers a worker that dies, but
   * not two runs of one send at once (the outbox pushes a job again when Redis came back empty while
   * its first run was still asking the provider). Of such runs, the one that claims the message asks
   * ({@link SendClaimsRepository.claim}); another finds it finished, or comes back (RetryLaterError)
   * when the claim's lease ends, after which, or on its last attempt, the holder counts as dead and
   * the message ends {@link SEND_INTERRUPTED}.
   */
  private waitForClaimHolder(since: Date | null, lastAttempt: boolean): void {
    // No time seen: the other run's claim committed while this statement waited on the key (its snapshot predates it), so it is fresh.
    const leaseLeftMs = (since?.getTime() ?? Date.now()) + SEND_CLAIM_LEASE_MS - Date.now();
    if (leaseLeftMs > 0 && !lastAttempt)
      throw new RetryLaterError('Another run of this send is asking the provider', Math.max(1000, leaseLeftMs));
  }

  /**
   * The messaging limit for a scheduled template, counted when it leaves rather than when it was
   * accepted (the limit is a rolling 24 h). Over the limit it ends Failed with
   * `WhatsApp:MessagingLimitReached` (nobody is left to answer a 429) and answers false.
   */
  private async admitScheduledTemplate(
    workspaceId: string,
    eventId: string,
    channelId: string,
    request: Record<string, unknown>,
  ): Promise<boolean> {
    const [event, channel] = await Promise.all([
      this.events.findMessageRef(workspaceId, eventId),
      this.channelOrNull(this.channels.getRecent(workspaceId, channelId)),
    ]);
    const recipient = recipientOf(request);
    if (!event || !channel || !recipient) return true; // the send fails its own way
    if (await this.events.hasInboundWhatsAppFrom(workspaceId, channelId, { contactId: event.contactId }, serviceWindowStart())) return true;
    try {
      await this.governor.reserveRecipient(channel, recipient);
      return true;
    } catch (err) {
      if (!(err instanceof DomainError && err.code === MESSAGING_LIMIT_REACHED)) throw err;
      const change: StatusChange = {
        status: 'Failed',
        providerMessageId: null,
        errorCode: MESSAGING_LIMIT_REACHED,
        errorReason: err.message,
      };
      await this.statuses.move(workspaceId, channel, { eventId }, change);
      return false;
    }
  }

  /**
   * Takes the governor's turn (API.md §13: the channel's throughput, the recipient's pair rate):
   * asks again after a short wait; answers the start reserved for the message, or, when the wait
   * is long, how long until the job should come back (see {@link MAX_IN_PROCESS_WAIT_MS}).
   */
  private async governorTurn(channel: Readonly<Channel>, recipient: string): Promise<ReservedStart | { comeBackInMs: number }> {
    for (;;) {
      const turn = await this.governor.messageStart(channel, recipient);
      if (turn.reserved) return turn;
      if (turn.askAgainInMs > MAX_IN_PROCESS_WAIT_MS) return { comeBackInMs: turn.askAgainInMs };
      await sleep(turn.askAgainInMs);
    }
  }

  /** Worker: Mark As Read at the channel's provider; passing failures are retried, others (and the last attempt's) only logged. */
  async markRead(workspaceId: string, channelId: string, request: Record<string, unknown>, lastAttempt: boolean): Promise<void> {
    const { outcome } = await this.withFreshCredentials(workspaceId, channelId, (channel): Promise<MarkReadOutcome> => {
      if (!channel?.whatsAppProvider) return Promise.resolve(CHANNEL_GONE);
      return this.provider(channel.whatsAppProvider).markRead(channel, request);
    });
    if (outcome.kind === 'retry' && !lastAttempt) {
      throw new RetryLaterError(`WhatsApp provider: ${outcome.errorCode} ${outcome.failureReason}`, outcome.retryAfterMs);
    }
    if (outcome.kind !== 'done')
      this.logger.warn(`Mark As Read of ${String(request.message_id)} failed: ${outcome.errorCode} ${outcome.failureReason}`);
  }

  /**
   * Runs a provider call with the channel as this process knows it; when the provider refuses the
   * token (which may be a cached channel's old one), reads the channel afresh and, if its
   * credentials changed, tries once more with them.
   */
  private async withFreshCredentials<O extends { kind: string; errorCode?: string }>(
    workspaceId: string,
    channelId: string,
    call: (channel: Readonly<Channel> | null) => Promise<O>,
  ): Promise<{ channel: Readonly<Channel> | null; outcome: O }> {
    let channel = await this.channelOrNull(this.channels.getRecent(workspaceId, channelId));
    let outcome = await call(channel);
    if (outcome.kind === 'failed' && outcome.errorCode === UNAUTHORIZED && channel) {
      const fresh = await this.channelOrNull(this.channels.get(workspaceId, channelId));
      if (fresh?.whatsAppCredentialsSealed !== channel.whatsAppCredentialsSealed) {
        this.channels.forgetRecent(workspaceId, channelId);
        channel = fresh;
        outcome = await call(channel);
      }
    }
    return { channel, outcome };
  }

  /** A deleted channel is null (the message ends Failed); any other error (the database) lets Bull retry. */
  private channelOrNull(lookup: Promise<Readonly<Channel>>): Promise<Readonly<Channel> | null> {
    return lookup.catch((err: unknown) => {
      if (err instanceof NotFoundError) return null;
      throw err;
    });
  }

  private async sendThrough(
    channel: Readonly<Channel> | null,
    request: Record<string, unknown>,
    media?: { fileId: string },
  ): Promise<SendOutcome> {
    if (!channel?.whatsAppProvider) return CHANNEL_GONE;
    const provider = this.provider(channel.whatsAppProvider);
    if (!media) return provider.send(channel, request);
    const upload = await this.media.providerMediaId(channel, provider, media.fileId);
    if (upload.kind !== 'uploaded') return upload;
    return provider.send(channel, withProviderMediaId(request, upload.providerMediaId));
  }

  private provider(name: string): WhatsAppProvider {
    return name === 'cloud-api' ? this.cloudApi : this.sandbox;
  }
}

/** Claims made in one statement at most; and claiming statements at once. */
const CLAIM_BATCH = { maxBatchSize: 64, maxInFlight: 2 };

/** A run of a send asking for its message's claim. */
interface SendClaimRun {
  workspaceId: string;
  eventId: string;
  holder: string;
}

/** What a run of a send got: the provider's answer (or an outcome without asking), the channel as asked, and this run's claim when it asked. */
interface AskedProvider {
  channel: Readonly<Channel> | null;
  outcome: SendOutcome;
  holder?: string;
}

/** One attempt of the send job, as {@link SendDelivery.deliver} runs it. */
export interface DeliveryAttempt {
  lastAttempt: boolean;
  /** The message was recorded Scheduled: its status is read before the claim. */
  scheduled?: boolean;
  /**
   * This attempt of this job (its id, its creation time in the queue and Bull's attempt count): the
   * name its claim is held under. A stalled job run again keeps it; a job pushed again by the outbox
   * (a new job in Redis) does not. A run of its own when absent.
   */
  run?: string;
  media?: { fileId: string };
  /** The provider's answer to an earlier attempt that could not record it: recorded now, nothing is sent. */
  earlierOutcome?: FinalSendOutcome;
  /** An earlier run of this attempt was asking the provider when its worker died: the message ends {@link SEND_INTERRUPTED}, nothing is sent. */
  interrupted?: boolean;
  /** Keeps the provider's answer with the job (in Redis) when recording it fails. */
  keepOutcome: (outcome: FinalSendOutcome) => Promise<unknown>;
  /** Marks the job (in Redis) as asking the provider in this attempt. */
  markSending: () => Promise<unknown>;
}

/** The outcome of a send whose worker died while the provider was being asked (see SendDelivery.askInTurn). */
export const SEND_INTERRUPTED = {
  kind: 'failed',
  errorCode: 'WhatsApp:SendInterrupted',
  failureReason:
    'The worker sending this message stopped while the provider was being asked; the message may have been delivered, and is not sent again so that it is never sent twice.',
} as const;

const CHANNEL_GONE = {
  kind: 'failed',
  errorCode: 'Channels:ChannelNotFound',
  failureReason: 'The channel was deleted or has no WhatsApp.',
} as const;
