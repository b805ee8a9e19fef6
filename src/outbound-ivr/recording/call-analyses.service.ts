import { Injectable, Logger } from '@nestjs/common';
import { analyseRecording } from '../../call-intelligence/call-analysis.js';
import { CallIntelligenceService } from '../../call-intelligence/call-intelligence.service.js';
import { ProviderError } from '../../call-intelligence/openai-compatible-client.js';
import { quietMoment } from '../../common/load/quiet-moment.js';
import { AppConfig } from '../../config/app-config.js';
import { RetryLaterError } from '../../queue/retry-later.js';
import { MediaStorage } from '../../storage/media-storage.js';
import { CallTracker, type CallRef } from '../call-tracker.service.js';
import { OutboundIvrRequestsRepository } from '../outbound-ivr-requests.repository.js';
import { readAtMost } from './call-audio.js';

/** OpenAI's audio uploads stop at 25 MB a file; a recording's channel is sent on its own, so twice that. */
const MAX_RECORDING_BYTES = 50 * 1024 * 1024;
/** The longest an analysis gives way to a busy worker. */
const MAX_DEFER_MS = 30_000;

/**
 * The worker's side of a recorded call's analysis (API.md §16): the stored recording transcribed
 * and summarised with the workspace's providers. A provider's passing error (429, 5xx, network)
 * is retried with the queue's backoff; a refusal (400, 401, 404) or the last failure ends it
 * Failed with `analysisError`. Either way the tracker settles the Call Webhook.
 */
@Injectable()
export class CallAnalyses {
  private readonly logger = new Logger(CallAnalyses.name);

  constructor(
    private readonly requests: OutboundIvrRequestsRepository,
    private readonly intelligence: CallIntelligenceService,
    private readonly storage: MediaStorage,
    private readonly tracker: CallTracker,
    config: AppConfig,
  ) {
    this.maxDeferMs = Math.min(MAX_DEFER_MS, config.voice.callIntelligenceWaitMs / 4);
  }

  private readonly maxDeferMs: number;

  /**
   * Waits first for a quiet moment of this worker (no call being placed or followed: calls and
   * their outcome webhooks go first), at most a quarter of the Call Webhook's wait (30 s at most)
   * after it was asked for (`queuedAt`).
   */
  async analyse(ref: CallRef, lastAttempt: boolean, load: { queuedAt: number; busy: () => boolean }): Promise<void> {
    await quietMoment(load.queuedAt + this.maxDeferMs, load.busy);
    const record = await this.requests.findById(ref.workspaceId, ref.id);
    if (!record || record.analysisStatus !== 'Pending') return; // settled by an earlier run
    const plan = await this.intelligence.planFor(ref.workspaceId);
    if (!record.recordingUrl || !plan.transcription)
      return this.tracker.analysisSettled(ref, {
        error: record.recordingUrl ? 'The workspace no longer has a transcription provider.' : 'The recording is no longer stored.',
      });
    try {
      const stream = await this.storage.openOwnUrl(ref.workspaceId, record.recordingUrl);
      if (!stream) return await this.tracker.analysisSettled(ref, { error: 'The recording is no longer stored.' });
      const analysis = await analyseRecording(await readAtMost(stream, MAX_RECORDING_BYTES), plan);
      await this.tracker.analysisSettled(ref, { analysis });
    } catch (err) {
      const message = (err as Error).message;
      if (err instanceof ProviderError && err.retryable && !lastAttempt) throw new RetryLaterError(`Call analysis: ${message}`);
      // Not the provider's answer (the database, storage): tried again, so a paid transcription is not thrown away.
      if (!(err instanceof ProviderError) && !lastAttempt) throw err;
      this.logger.warn(`Outbound IVR ${ref.id}: the analysis failed: ${message}`);
      await this.tracker.analysisSettled(ref, { error: message });
    }
  }
}
