import { InjectQueue } from '@nestjs/bull';
import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bull';
import { ChannelsService } from '../channels/channels.service.js';
import { AppConfig } from '../config/app-config.js';
import { JobHandler } from '../queue/job-handler.decorator.js';
import { JobName, QueueName } from '../queue/queue-names.js';
import { CallTracker } from './call-tracker.service.js';
import { OutboundIvrRequestsRepository } from './outbound-ivr-requests.repository.js';
import { VoiceProviders } from './providers/voice-providers.js';
import { VoiceProviderRefused } from './providers/voice-provider.js';

const SWEEP_EVERY_MS = 60_000;
const BATCH = 200;

/**
 * Ends calls whose final report never came: a lost status callback, a worker that died while it
 * played a sandbox call, a placement whose outcome was unknown. Every minute it takes the calls
 * placed longer ago than IVR_STALE_CALL_MINUTES and still unfinished: a provider that knows how
 * one ended says so; the others are hung up at the provider and end Failed.
 */
@Injectable()
export class CallSweeper implements OnApplicationBootstrap {
  private readonly logger = new Logger(CallSweeper.name);

  constructor(
    private readonly requests: OutboundIvrRequestsRepository,
    private readonly config: AppConfig,
    private readonly channels: ChannelsService,
    private readonly tracker: CallTracker,
    private readonly providers: VoiceProviders,
    @InjectQueue(QueueName.Maintenance) private readonly queue: Queue,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.runsWorker) return;
    await this.queue.add(JobName.SweepStaleIvrCalls, {}, { repeat: { every: SWEEP_EVERY_MS }, jobId: JobName.SweepStaleIvrCalls });
  }

  @JobHandler(JobName.SweepStaleIvrCalls)
  async run(): Promise<{ ended: number }> {
    return { ended: await this.sweep(this.config.voice.staleCallMinutes * 60_000) };
  }

  /** Ends the stale calls placed more than `olderThanMs` ago; returns how many it ended. */
  async sweep(olderThanMs: number): Promise<number> {
    // Across workspaces by design (a system job); each call is then changed under its own workspace.
    const stale = await this.requests.findUnscopedStale(new Date(Date.now() - olderThanMs), BATCH);
    let ended = 0;
    for (const call of stale) {
      const ref = { id: call.id, workspaceId: call.workspaceId };
      try {
        const channel = await this.channels.getIncludingDeleted(call.workspaceId, call.channelId);
        const provider = channel ? this.providers.of(channel, call) : null;
        const report = channel && call.callId ? await provider!.finalReport(channel, call.callId) : null;
        // A call the provider gives no end for may still be up there (a WhatsApp call whose worker
        // is gone, a Twilio call still in progress): it is ended there before it is ended here. A
        // refusal (the call is gone there already) leaves nothing to end; an outage waits for the next sweep.
        if (!report && channel && call.callId)
          await provider!.hangUp(channel, call.callId).catch((err: unknown) => {
            if (!(err instanceof VoiceProviderRefused)) throw err;
          });
        const minutes = Math.round(olderThanMs / 60_000);
        const progress = report ?? {
          kind: 'ended' as const,
          at: new Date(),
          ending: 'failed' as const,
          hangupCause: 'NO_FINAL_REPORT',
          errorMessage: `No final report arrived from the voice provider within ${minutes} minutes of placing the call.`,
        };
        if (!(await this.tracker.progress(ref, progress))) ended++;
      } catch (err) {
        // The provider may be unreachable now; the call stays for the next sweep.
        this.logger.warn(`Could not settle stale call ${call.id}: ${(err as Error).message}`);
      }
    }
    return ended;
  }
}
