import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { Injectable } from '@nestjs/common';
import type { Channel } from '../../channels/channel.entity.js';
import { Ffmpeg, FfmpegError, SAFE_INPUT_OPTIONS } from '../../media/ffmpeg.js';
import type { StoredMedia } from '../../storage/media-storage.js';
import { MediaStorage } from '../../storage/media-storage.js';
import { MediaNotFound } from '../../storage/storage.errors.js';
import { removeQuietly, StoragePaths } from '../../storage/storage-paths.js';
import type { MediaById } from './free-form-message.js';
import type { MediaUpload, UploadOutcome, WhatsAppProvider } from '../providers/whatsapp-provider.js';
import { WhatsAppMediaUploadsRepository } from './whatsapp-media-uploads.repository.js';
import { MediaTypeMismatch } from '../whatsapp.errors.js';

/** Meta keeps an uploaded file 30 days. */
const UPLOAD_LIFETIME_MS = 30 * 24 * 3600 * 1000;
/** An id this close to its expiry is uploaded again: the message using it could reach Meta after it. */
const EXPIRY_MARGIN_MS = 3600 * 1000;

/** Audio the Cloud API takes (audio/ogg with the Opus codec); other audio (Upload Audio File's WAV) is converted to OGG/Opus first. */
const CLOUD_AUDIO_TYPES = new Set(['audio/aac', 'audio/amr', 'audio/mpeg', 'audio/mp4', 'audio/ogg']);
const TO_OGG_OPUS = '-map 0:a:0 -c:a libopus -b:a 32k -application voip -map_metadata -1 -f ogg'.split(' ');

/**
 * Media sends by uploaded file (`mediaId`): the request path checks the file; the worker uploads it
 * to the channel's provider once per channel and file and keeps the provider's id until it expires.
 */
@Injectable()
export class WhatsAppMediaService {
  /** Uploads under way in this process, by channel and file: concurrent sends of one file wait for one upload. */
  private readonly inFlight = new Map<string, Promise<UploadOutcome>>();

  constructor(
    private readonly uploads: WhatsAppMediaUploadsRepository,
    private readonly storage: MediaStorage,
    private readonly paths: StoragePaths,
    private readonly ffmpeg: Ffmpeg,
  ) {}

  /** Request path: the workspace's uploaded file of a media send (404 when unknown or another workspace's; 400 when of another kind). */
  async fileFor(workspaceId: string, media: MediaById): Promise<StoredMedia> {
    const file = await this.storage.find(workspaceId, media.fileId);
    if (!file) throw MediaNotFound();
    if (file.mediaType !== media.mediaType) throw MediaTypeMismatch(media.mediaType, file.mediaType);
    return file;
  }

  /**
   * Worker: the provider's id of the file on the channel, uploaded now unless a usable one is kept.
   * One upload per channel and file however many sends want it at once, in this process (the
   * in-flight map) and across processes (a database lock while uploading).
   */
  providerMediaId(channel: Readonly<Channel>, provider: WhatsAppProvider, fileId: string): Promise<UploadOutcome> {
    const key = `${channel.id}:${fileId}`;
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.resolve(channel, provider, fileId).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  private async resolve(channel: Readonly<Channel>, provider: WhatsAppProvider, fileId: string): Promise<UploadOutcome> {
    const usable = (uploads: WhatsAppMediaUploadsRepository) =>
      uploads.findUsable(channel.workspaceId, channel.id, fileId, new Date(Date.now() + EXPIRY_MARGIN_MS));
    const kept = await usable(this.uploads);
    if (kept) return { kind: 'uploaded', providerMediaId: kept };
    return this.uploads.exclusively(channel.id, fileId, async (uploads) => {
      // Another process may have uploaded it while this one waited for the lock.
      const keptMeanwhile = await usable(uploads);
      if (keptMeanwhile) return { kind: 'uploaded', providerMediaId: keptMeanwhile };
      // Meta's 30 days start when it receives the file: count from before the upload starts.
      const uploadedAt = new Date();
      const outcome = await this.upload(channel, provider, fileId);
      if (outcome.kind === 'uploaded') {
        await uploads.remember(channel.workspaceId, {
          channelId: channel.id,
          mediaFileId: fileId,
          providerMediaId: outcome.providerMediaId,
          uploadedAt,
          expiresAt: new Date(uploadedAt.getTime() + UPLOAD_LIFETIME_MS),
        });
      }
      return outcome;
    });
  }

  /** Streams the stored file to the provider (audio in a format the Cloud API refuses is converted to OGG/Opus first). */
  private async upload(channel: Readonly<Channel>, provider: WhatsAppProvider, fileId: string): Promise<UploadOutcome> {
    const opened = await this.storage.open(channel.workspaceId, fileId);
    if (!opened) return { kind: 'failed', errorCode: 'Media:NotFound', failureReason: 'The uploaded file no longer exists.' };
    const { file, stream } = opened;
    if (file.mediaType !== 'audio' || CLOUD_AUDIO_TYPES.has(file.contentType)) {
      try {
        return await provider.uploadMedia(channel, { stream, size: file.size, contentType: file.contentType, fileName: file.fileName });
      } finally {
        stream.destroy();
      }
    }
    const original = this.paths.tempFile();
    const converted = this.paths.tempFile('.ogg');
    try {
      await pipeline(stream, createWriteStream(original));
      const media = await this.toOggOpus(original, converted, file.fileName);
      if ('kind' in media) return media;
      try {
        return await provider.uploadMedia(channel, media);
      } finally {
        media.stream.destroy();
      }
    } finally {
      await Promise.all([removeQuietly(original), removeQuietly(converted)]);
    }
  }

  private async toOggOpus(input: string, output: string, fileName: string): Promise<MediaUpload | UploadOutcome> {
    try {
      await this.ffmpeg.run(['-loglevel', 'error', ...SAFE_INPUT_OPTIONS, '-i', input, ...TO_OGG_OPUS, '-y', output]);
    } catch (err) {
      if (!(err instanceof FfmpegError)) throw err;
      const failure = {
        errorCode: 'WhatsApp:MediaConversionFailed',
        failureReason: `The audio could not be converted for WhatsApp: ${err.message}`,
      };
      return err.reason === 'timeout' ? { kind: 'retry', ...failure } : { kind: 'failed', ...failure };
    }
    const { size } = await stat(output);
    return { stream: createReadStream(output), size, contentType: 'audio/ogg', fileName: fileName.replace(/\.[^.]*$/, '') + '.ogg' };
  }
}
