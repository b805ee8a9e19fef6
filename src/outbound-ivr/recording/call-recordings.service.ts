import { Injectable, Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { ChannelsService } from '../../channels/channels.service.js';
import { readWavFormat } from '../../media/wav.js';
import { RetryLaterError } from '../../queue/retry-later.js';
import { MediaStorage } from '../../storage/media-storage.js';
import { removeQuietly, StoragePaths } from '../../storage/storage-paths.js';
import type { StoredRecording } from '../call-progress.js';
import { CallTracker, type CallRef } from '../call-tracker.service.js';
import { OutboundIvrRequestsRepository } from '../outbound-ivr-requests.repository.js';
import { RecordingNotFound, TwilioVoiceProvider } from '../providers/twilio-voice.provider.js';
import { VoiceProviderRefused } from '../providers/voice-provider.js';
import { CallAudio, readAtMost, telephonySamples } from './call-audio.js';

/** A prompt longer than this (about four minutes of telephony audio) is cut off in a sandbox recording. */
const MAX_PROMPT_BYTES = 4 * 1024 * 1024;
/** 64 MB of prompts: about 70 minutes of telephony audio. */
const PROMPT_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * Call recordings (API.md §16) in our storage: fetched from Twilio (then deleted there), or
 * assembled by the sandbox; each stored like an upload, with its absolute unguessable URL.
 */
@Injectable()
export class CallRecordings {
  private readonly logger = new Logger(CallRecordings.name);

  constructor(
    private readonly requests: OutboundIvrRequestsRepository,
    private readonly channels: ChannelsService,
    private readonly twilio: TwilioVoiceProvider,
    private readonly storage: MediaStorage,
    private readonly paths: StoragePaths,
    private readonly tracker: CallTracker,
  ) {}

  /**
   * The job for Twilio's "recording completed": streams the WAV into storage, records it on the
   * call, then deletes it at Twilio. A provider error is retried; on the last attempt, or when
   * Twilio has no such recording, the call is left without one and says why (`recordingError`).
   * A retry after the file was stored only deletes it at Twilio.
   */
  async fetchFromTwilio(ref: CallRef, recordingSid: string, lastAttempt: boolean): Promise<void> {
    const request = await this.tracker.inTurn(() => this.requests.findById(ref.workspaceId, ref.id));
    if (!request) return;
    const channel = await this.channels.getIncludingDeleted(ref.workspaceId, request.channelId);
    if (channel?.voiceProvider !== 'twilio') return;
    if (!request.recordingMediaId) {
      try {
        await this.downloadAndStore(ref, (target) => this.twilio.downloadRecording(channel, recordingSid, target));
      } catch (err) {
        const forGood = err instanceof RecordingNotFound || err instanceof VoiceProviderRefused || err instanceof NotAWav;
        if (!forGood && !lastAttempt) throw new RetryLaterError(`Recording ${recordingSid}: ${(err as Error).message}`);
        // Never deleted at Twilio without our copy: it stays there (Twilio keeps a recording until it
        // is deleted), and the error names it for whoever wants to fetch it by hand.
        const kept = err instanceof RecordingNotFound ? '' : ` (it is kept at the provider as ${recordingSid})`;
        await this.tracker.recordingSettled(ref, { error: `The recording could not be fetched: ${(err as Error).message}${kept}` });
        return;
      }
    }
    try {
      await this.twilio.deleteRecording(channel, recordingSid);
    } catch (err) {
      if (!lastAttempt && !(err instanceof VoiceProviderRefused))
        throw new RetryLaterError(`Deleting recording ${recordingSid}: ${(err as Error).message}`);
      this.logger.warn(
        `Recording ${recordingSid} of call ${ref.id} is stored but could not be deleted at the provider: ${(err as Error).message}`,
      );
    }
  }

  /**
   * Writes the recording a worker assembled of a call `durationMs` long (the sandbox's, a WhatsApp
   * call's), stores it and records it on the call; a failure leaves the call with `recordingError`.
   */
  async storeAndSettle(ref: CallRef, audio: CallAudio, durationMs: number): Promise<void> {
    const path = this.paths.tempFile('.wav');
    try {
      const exactMs = await audio.write(path, durationMs);
      await this.settle(ref, await this.store(ref.workspaceId, path, exactMs));
    } catch (err) {
      this.logger.warn(`The recording of call ${ref.id} could not be stored: ${(err as Error).message}`);
      await this.tracker
        .recordingSettled(ref, { error: `The recording could not be stored: ${(err as Error).message}` })
        .catch(() => false);
    } finally {
      await removeQuietly(path);
    }
  }

  /**
   * The samples of a prompt the sandbox plays: our own stored telephony WAVs (speech, uploads);
   * a file elsewhere is not fetched (the sandbox has no network), nor another format decoded: silence.
   */
  async promptSamples(workspaceId: string, url: string): Promise<Int16Array | null> {
    return (await this.prompts.fetch(`${workspaceId} ${url}`)) ?? null;
  }

  /**
   * Prompts read once for every call that plays them (a campaign's hundred calls, one file; a
   * stored file never changes). Same samples, same Opus frames too (see OpusFrameEncoder).
   */
  private readonly prompts = new LRUCache<string, Int16Array>({
    maxSize: PROMPT_CACHE_BYTES,
    sizeCalculation: (samples) => Math.max(1, samples.byteLength),
    fetchMethod: async (key) => {
      const [workspaceId, url] = [key.slice(0, key.indexOf(' ')), key.slice(key.indexOf(' ') + 1)];
      const stream = await this.storage.openOwnUrl(workspaceId, url).catch(() => null);
      // Not one of ours (or gone): not kept, so a file stored later at no other URL is not hidden.
      return (stream && telephonySamples(await readAtMost(stream, MAX_PROMPT_BYTES))) ?? undefined;
    },
  });

  private async downloadAndStore(ref: CallRef, download: (target: string) => Promise<void>): Promise<void> {
    const path = this.paths.tempFile('.wav');
    try {
      await download(path);
      const format = await readWavFormat(path).catch((err: Error) => {
        throw new NotAWav(`the provider's file is not a WAV (${err.message})`);
      });
      await this.settle(ref, await this.store(ref.workspaceId, path, format.durationMs));
    } finally {
      await removeQuietly(path);
    }
  }

  /**
   * Records a stored file on its call. The file goes again when that fails (the record's write
   * failed: no file without a record), or when the call has one already (an earlier run stored it
   * and died before deleting at the provider).
   */
  private async settle(ref: CallRef, recording: StoredRecording): Promise<void> {
    let kept = false;
    try {
      kept = await this.tracker.recordingSettled(ref, { recording });
    } finally {
      if (!kept)
        await this.storage
          .discard(ref.workspaceId, recording.mediaId)
          .catch((err: Error) => this.logger.warn(`Stored recording ${recording.mediaId} could not be discarded: ${err.message}`));
    }
  }

  private async store(workspaceId: string, path: string, durationMs: number): Promise<StoredRecording> {
    const stored = await this.storage.save(
      workspaceId,
      { path, move: true },
      { fileName: 'recording.wav', contentType: 'audio/wav', mediaType: 'audio', durationMs },
    );
    return { mediaId: stored.id, url: stored.url, durationMs: Math.round(durationMs) };
  }
}

class NotAWav extends Error {}
