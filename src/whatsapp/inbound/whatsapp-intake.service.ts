import { MessageChangesService } from './message-changes.service.js';
import { BeforeApplicationShutdown, Injectable, Logger, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import { SharedInvalidation } from '../../common/cache/shared-invalidation.js';
import { NotFoundError } from '../../common/errors/domain-error.js';
import { AppConfig } from '../../config/app-config.js';
import { MetaTiers } from '../../governor/meta-tiers.service.js';
import { SendGovernor } from '../../governor/send-governor.service.js';
import { readTierUpdates } from './tier-updates.js';
import { Outbox } from '../../queue/outbox.service.js';
import { Retention } from '../../queue/retention.service.js';
import { backoffDelay, RetryLaterError } from '../../queue/retry-later.js';
import { readNotification, type CloudWebhookNotification, type MessageChange, type StatusUpdate } from './cloud-webhook.js';
import { InboundService, type InboundMessage } from './inbound.service.js';
import { StatusService } from '../outbound/status.service.js';
import { WhatsAppContactsService } from './whatsapp-contacts.service.js';
import { WhatsAppIntakeRepository, type ClaimedRow, type IntakeEntry } from './whatsapp-intake.repository.js';
import { inTransaction } from '../../database/transactions.js';
import { TemplatesService } from '../templates/templates.service.js';

/** Edge: at most this many INSERTs at once; requests arriving meanwhile go into the next one (one statement for many). */
const MAX_WRITES_IN_FLIGHT = 2;
const MAX_ROWS_PER_WRITE = 500;
/** ...and at most about this many bytes of bodies in one INSERT (a notification is usually about a kilobyte). */
const MAX_BYTES_PER_WRITE = 4 * 1024 * 1024;

/**
 * Worker: one claiming loop, so that a conversation's messages are recorded in the order they came
 * (a round's messages go in one transaction, set-based); rows claimed per round; and other rows
 * (statuses, identity changes, preferences) processed at once, one transaction each.
 */
const CLAIM_BATCH = 200;
const ONE_BY_ONE_CONCURRENCY = 16;
/**
 * The topic an edge announces each committed write on: an idle lane holds the belief that nothing
 * waits for it, and a write anywhere invalidates it. Every worker hears it within a ms or two, so
 * under a steady load each round is small and the work (and the webhooks it sends) comes evenly;
 * when Redis drops the message the lane looks by itself every WHATSAPP_INTAKE_IDLE_POLL_MS. (Before,
 * idle lanes polled every 20 ms: 50 empty claims a second for each worker however idle, and at
 * 200 ms, rounds of a hundred notifications came in bursts that held the edge's answers back.)
 */
const INTAKE_WRITTEN = 'whatsapp-intake-written';
/** A row whose processing failed this many times is given up (as a Bull job was after its attempts). */
const MAX_ATTEMPTS = 5;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The intake of Meta's webhook notifications (`whatsapp_intake`). The edge writes each signed
 * notification in one short INSERT, batched with those of concurrent requests, and answers.
 * Workers claim rows in batches (`FOR UPDATE SKIP LOCKED`, with a lease) and record the
 * messages, statuses and identity changes of each; a row is marked processed only afterwards, so
 * a worker's crash loses nothing (the row is claimed again when its lease lapses, and a message
 * recorded before is recognised by its provider id). A failure is retried with backoff; after
 * {@link MAX_ATTEMPTS} the row is given up with its error, and a channel that is gone at once.
 */
@Injectable()
export class WhatsAppIntake implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(WhatsAppIntake.name);
  private readonly queued: Array<IntakeEntry & { resolve: () => void; reject: (err: unknown) => void }> = [];
  private writesInFlight = 0;
  private stopping = false;
  private lanes: Array<Promise<void>> = [];
  private wakers: Array<() => void> = [];
  /** A wake came since the lane last began a claim: the claim may have missed that write. */
  private wokenSinceClaim = false;

  constructor(
    private readonly intake: WhatsAppIntakeRepository,
    private readonly config: AppConfig,
    private readonly retention: Retention,
    private readonly inbound: InboundService,
    private readonly statuses: StatusService,
    private readonly contacts: WhatsAppContactsService,
    private readonly outbox: Outbox,
    private readonly writes: SharedInvalidation,
    private readonly governor: SendGovernor,
    private readonly messageChanges: MessageChangesService,
    private readonly templates: TemplatesService,
    private readonly tiers: MetaTiers,
  ) {
    // Only a process with lanes listens: an API replica's own writes wake nothing it runs.
    if (config.runsWorker) writes.on(INTAKE_WRITTEN, () => this.wake());
  }

  /** Processed rows are kept as long as finished outbox rows (OUTBOX_RETENTION), then deleted. */
  onModuleInit(): void {
    this.retention.register({
      table: 'whatsapp_intake',
      keepMs: this.config.retention.outboxMs,
      deleteBatch: (cutoff, limit) => this.intake.deleteProcessedBefore(cutoff, limit),
    });
  }

  onApplicationBootstrap(): void {
    if (!this.config.runsWorker) return;
    this.lanes = [this.lane()];
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    this.wake();
    await Promise.all(this.lanes);
  }

  /** Edge: stores the notification (resolves once it is committed). */
  write(entry: IntakeEntry): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queued.push({ ...entry, resolve, reject });
      this.flush();
    });
  }

  private flush(): void {
    while (this.writesInFlight < MAX_WRITES_IN_FLIGHT && this.queued.length > 0) {
      let rows = 0;
      let bytes = 0;
      while (
        rows < this.queued.length &&
        rows < MAX_ROWS_PER_WRITE &&
        (rows === 0 || bytes + this.queued[rows].body.length <= MAX_BYTES_PER_WRITE)
      ) {
        bytes += this.queued[rows].body.length;
        rows++;
      }
      const batch = this.queued.splice(0, rows);
      this.writesInFlight++;
      this.intake
        .insertMany(batch)
        .then(
          () => {
            for (const entry of batch) entry.resolve();
            // Wakes this process's lanes at once and every worker's as Redis carries it.
            this.writes.invalidate(INTAKE_WRITTEN, '');
          },
          (err: unknown) => {
            for (const entry of batch) entry.reject(err);
          },
        )
        .finally(() => {
          this.writesInFlight--;
          this.flush();
        });
    }
  }

  /** Wakes idle lanes of this process (a row was just written here or elsewhere, or the process stops). */
  private wake(): void {
    this.wokenSinceClaim = true;
    const wakers = this.wakers;
    this.wakers = [];
    for (const wake of wakers) wake();
  }

  /**
   * Waits for a wake or WHATSAPP_INTAKE_IDLE_POLL_MS. A poll that ends by its timer takes its waker
   * back: a waker left behind (no write for a while) would be kept, with its timer and promise,
   * until the next write.
   */
  private idle(): Promise<void> {
    if (this.wokenSinceClaim) return Promise.resolve();
    return new Promise((resolve) => {
      const waker = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.wakers = this.wakers.filter((other) => other !== waker);
        resolve();
      }, this.config.whatsapp.intakeIdlePollMs);
      this.wakers.push(waker);
    });
  }

  private async lane(): Promise<void> {
    while (!this.stopping) {
      let rows: ClaimedRow[];
      this.wokenSinceClaim = false;
      try {
        rows = await this.claim();
      } catch (err) {
        if (this.stopping) return;
        this.logger.warn({ err }, 'Claiming WhatsApp notifications failed');
        await sleep(1000);
        continue;
      }
      if (rows.length === 0) {
        await this.idle();
        continue;
      }
      await this.processRows(rows);
    }
  }

  /** Claims up to a batch of rows nobody holds, oldest first, for WHATSAPP_INTAKE_LEASE_MS (a dead worker's rows are claimed again after it). */
  private claim(): Promise<ClaimedRow[]> {
    return this.intake.claimUnscoped(CLAIM_BATCH, this.config.whatsapp.intakeLeaseMs / 1000);
  }

  /**
   * The rows in order: each run of rows carrying only messages (and edits), or only statuses, in
   * one transaction; other rows one by one.
   */
  private async processRows(rows: ClaimedRow[]): Promise<void> {
    const read = rows.map((row) => ({ row, content: batchableContent(row) }));
    for (let start = 0; start < read.length;) {
      const kind = read[start].content?.kind;
      let end = start + 1;
      while (end < read.length && read[end].content?.kind === kind) end++;
      const run = read.slice(start, end);
      if (kind === 'messages') await this.recordMessages(run as Array<{ row: ClaimedRow; content: MessagesOnly }>);
      else if (kind === 'statuses') await this.applyStatuses(run as Array<{ row: ClaimedRow; content: StatusesOnly }>);
      else await this.processOneByOne(run.map((r) => r.row));
      start = end;
    }
  }

  /**
   * Rows carrying only statuses: applied by channel, each channel's in one transaction (a few
   * statements for all, see {@link StatusService.applyMany}), and marked processed, but for the rows
   * naming a message not recorded yet, which come back after a backoff (their other statuses are
   * applied already and change nothing the second time). Should a channel's fail, its rows are
   * processed on their own.
   */
  private async applyStatuses(rows: Array<{ row: ClaimedRow; content: StatusesOnly }>): Promise<void> {
    const channels = new Map<string, Array<{ row: ClaimedRow; content: StatusesOnly }>>();
    for (const entry of rows) {
      const key = `${entry.row.workspace_id}:${entry.row.channel_id}`;
      channels.set(key, [...(channels.get(key) ?? []), entry]);
    }
    for (const run of channels.values()) {
      const { workspace_id: workspaceId, channel_id: channelId } = run[0].row;
      let unrecorded: Set<string>;
      try {
        unrecorded = await this.statuses.applyMany(
          workspaceId,
          channelId,
          run.flatMap(({ content }) => content.statuses),
        );
      } catch (err) {
        this.logger.warn({ err }, `Applying ${run.length} WhatsApp status notifications together failed; each is processed on its own`);
        await this.processOneByOne(run.map(({ row }) => row));
        continue;
      }
      const later = run.filter(({ content }) => content.statuses.some((status) => unrecorded.has(status.providerMessageId)));
      for (const { row } of later) {
        const err = new RetryLaterError(`A status of WhatsApp notification ${row.id} names a message not recorded yet`);
        await this.failed(row, err).catch((e: unknown) => this.logger.warn({ err: e }, 'Recording an intake failure failed'));
      }
      const done = run.filter((entry) => !later.includes(entry)).map(({ row }) => row.id);
      // If this fails the rows are claimed again after their lease: applying them again changes nothing.
      if (done.length > 0) {
        await this.intake
          .markProcessed(done)
          .catch((err: unknown) => this.logger.warn({ err }, 'Marking WhatsApp notifications processed failed'));
      }
    }
  }

  /**
   * Rows carrying only messages: recorded together in one transaction that marks them processed
   * (a few statements for all, see {@link InboundService.receiveMany}). Should that fail, each row
   * is processed on its own, with its own retries.
   */
  private async recordMessages(rows: Array<{ row: ClaimedRow; content: MessagesOnly }>): Promise<void> {
    type ChannelRun = { workspaceId: string; channelId: string } & MessagesOnly;
    const channels = new Map<string, ChannelRun>();
    for (const { row, content } of rows) {
      const key = `${row.workspace_id}:${row.channel_id}`;
      const channel = channels.get(key) ?? { workspaceId: row.workspace_id, channelId: row.channel_id, messages: [], changes: [] };
      channel.messages.push(...content.messages);
      channel.changes.push(...content.changes);
      channels.set(key, channel);
    }
    try {
      const discarded = await inTransaction(async () => {
        const files: Array<{ workspaceId: string; fileId: string }> = [];
        for (const { workspaceId, channelId, messages, changes } of channels.values()) {
          await this.inbound.receiveMany(workspaceId, channelId, messages);
          // After the messages: an edit may change one of them.
          for (const change of changes) {
            const fileId = await this.messageChanges.applyWithin(workspaceId, channelId, change);
            if (fileId) files.push({ workspaceId, fileId });
          }
        }
        await this.intake.markProcessed(rows.map(({ row }) => row.id));
        return files;
      });
      for (const { workspaceId, fileId } of discarded) await this.messageChanges.discardFile(workspaceId, fileId);
      for (const { workspaceId, channelId, messages } of channels.values()) this.countReceived(workspaceId, channelId, received(messages));
    } catch (err) {
      this.logger.warn({ err }, `Recording ${rows.length} WhatsApp notifications together failed; each is processed on its own`);
      await this.processOneByOne(rows.map(({ row }) => row));
    }
  }

  private async processOneByOne(rows: ClaimedRow[]): Promise<void> {
    const done: string[] = [];
    let next = 0;
    const run = async () => {
      while (next < rows.length) {
        const row = rows[next++];
        try {
          await this.process(row.workspace_id, row.channel_id, JSON.parse(row.body) as CloudWebhookNotification);
          done.push(row.id);
        } catch (err) {
          await this.failed(row, err).catch((e: unknown) => this.logger.warn({ err: e }, 'Recording an intake failure failed'));
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(ONE_BY_ONE_CONCURRENCY, rows.length) }, run));
    if (done.length === 0) return;
    // If this fails the rows are claimed again after their lease and recognised as recorded.
    await this.intake
      .markProcessed(done)
      .catch((err: unknown) => this.logger.warn({ err }, 'Marking WhatsApp notifications processed failed'));
  }

  /**
   * Meta's throughput counts the messages a number receives with those it sends: recorded ones take
   * places in the channel's send line (see `SendGovernor.inboundReceived`). Not waited for, and a
   * failure only logged: should the count be lost, Meta's 130429 still halves the channel.
   */
  private countReceived(workspaceId: string, channelId: string, count: number): void {
    if (count === 0) return;
    this.governor
      .inboundReceived({ id: channelId, workspaceId, whatsAppProvider: 'cloud-api' }, count)
      .catch((err: unknown) =>
        this.logger.debug({ err }, `Counting ${count} received messages against channel ${channelId}'s throughput failed`),
      );
  }

  /** A channel that is gone, or the last attempt: given up with the error; otherwise tried again after a backoff. */
  private async failed(row: ClaimedRow, err: unknown): Promise<void> {
    const reason = (err instanceof Error ? err.message : String(err)).slice(0, 1000);
    const giveUp = err instanceof NotFoundError || err instanceof SyntaxError || row.attempts >= MAX_ATTEMPTS;
    if (giveUp) {
      this.logger.warn(`WhatsApp notification ${row.id} of channel ${row.channel_id} given up after ${row.attempts} attempt(s): ${reason}`);
      await this.intake.giveUp(row.id, reason);
      return;
    }
    this.logger.warn(`WhatsApp notification ${row.id} failed (attempt ${row.attempts}), tried again: ${reason}`);
    await this.intake.retryLater(row.id, backoffDelay(row.attempts, err) / 1000, reason);
  }

  /** Applies a notification's identity changes and callers, then records its messages, statuses and marketing preferences. */
  async process(workspaceId: string, channelId: string, notification: CloudWebhookNotification): Promise<void> {
    const { messages, changes, statuses, identityUpdates, preferences, templates, callers } = readNotification(notification ?? {});
    // Identity first (API.md §14): a message from a rotated BSUID in the same notification then finds
    // the contact by its new id, and the system message announcing it is recorded under the new ids.
    for (const update of identityUpdates) await this.contacts.applyIdentityUpdate(workspaceId, update);
    // A user's call names them as a message does (API.md §15): their contact learns the ids it lacked, or is made.
    for (const caller of callers) await this.contacts.named(workspaceId, caller);
    for (const message of messages) await this.inbound.receive(workspaceId, channelId, message);
    this.countReceived(workspaceId, channelId, received(messages));
    // After the messages: an edit may change a message of the same notification.
    for (const change of changes) await this.messageChanges.apply(workspaceId, channelId, change);
    for (const preference of preferences) await this.contacts.applyMarketingPreference(workspaceId, preference);
    for (const template of templates) await this.templates.applyLifecycle(workspaceId, channelId, template);
    // Meta's word on the number's tiers (phone_number_quality_update, account_update): the governor's at once.
    for (const update of readTierUpdates(notification)) await this.tiers.apply(workspaceId, channelId, update);
    // Last: a status of a message not recorded yet makes the notification come back later, and what
    // came before it in this list is then applied already (each step is idempotent).
    if (statuses.length === 0) return;
    const unrecorded = await this.statuses.applyMany(workspaceId, channelId, statuses);
    if (unrecorded.size > 0) throw new RetryLaterError(`Statuses of WhatsApp messages not recorded yet: ${[...unrecorded].join(', ')}`);
  }
}

/** How many of these messages the number received (echoes of the Business app's sends have their own throughput). */
function received(messages: readonly InboundMessage[]): number {
  return messages.filter((message) => !message.businessAppEcho).length;
}

/** What a notification of messages, edits and deletions alone carries: recorded in a batch with others. */
interface MessagesOnly {
  messages: InboundMessage[];
  changes: MessageChange[];
}

/** What a notification of statuses alone carries: applied in a batch with others. */
interface StatusesOnly {
  statuses: StatusUpdate[];
}

type BatchableContent = ({ kind: 'messages' } & MessagesOnly) | ({ kind: 'statuses' } & StatusesOnly);

/**
 * A notification's messages and edits when it carries nothing else, or its statuses when it carries
 * nothing else; undefined when it carries more kinds, or cannot be read.
 */
function batchableContent(row: ClaimedRow): BatchableContent | undefined {
  try {
    const body = (JSON.parse(row.body) as CloudWebhookNotification) ?? {};
    const { messages, changes, statuses, identityUpdates, preferences, templates, callers } = readNotification(body);
    if (identityUpdates.length + preferences.length + templates.length + callers.length + readTierUpdates(body).length > 0)
      return undefined;
    if (statuses.length === 0) return { kind: 'messages', messages, changes };
    if (messages.length + changes.length === 0) return { kind: 'statuses', statuses };
    return undefined;
  } catch {
    return undefined;
  }
}
