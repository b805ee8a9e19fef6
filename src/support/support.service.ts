import { Injectable } from '@nestjs/common';
import type { FileTypeResult } from 'file-type';
import { AppConfig } from '../config/app-config.js';
import { AudioConverter, TELEPHONY_WAV } from '../media/audio-converter.js';
import { Ffmpeg, FfmpegError } from '../media/ffmpeg.js';
import { safeFileName } from '../storage/file-names.js';
import { MediaStorage, type StoredMedia } from '../storage/media-storage.js';
import { removeQuietly, StoragePaths } from '../storage/storage-paths.js';
import type { IncomingFile } from './multipart-file.js';
import { receiveUpload, type UploadLimit } from './receive-upload.js';
import { ConversionTimedOut, UnsupportedMediaType } from './support.errors.js';
import { AUDIO_UPLOAD_MAX_BYTES, MEDIA_UPLOAD_ALLOWED, MEDIA_UPLOAD_TYPES, mayBeAudio } from './upload-types.js';

/** The two Support API uploads: received into a temp file, checked, converted if audio, then stored. */
@Injectable()
export class SupportService {
  constructor(
    private readonly storage: MediaStorage,
    private readonly paths: StoragePaths,
    private readonly ffmpeg: Ffmpeg,
    private readonly converter: AudioConverter,
    private readonly config: AppConfig,
  ) {}

  /** Upload Image, Video, or PDF: JPEG/PNG, MP4/3GP or PDF by content, each within its limit. */
  async uploadMedia(workspaceId: string, file: IncomingFile): Promise<StoredMedia> {
    const temp = this.paths.tempFile();
    try {
      const { detected } = await receiveUpload(file.stream, temp, admitMedia);
      const { mime, ext } = detected as FileTypeResult;
      const { mediaType } = MEDIA_UPLOAD_TYPES[mime];
      const durationMs = mediaType === 'video' ? await this.ffmpeg.probeDurationMs(temp).catch(() => null) : null;
      return await this.storage.save(
        workspaceId,
        { path: temp, move: true },
        { fileName: safeFileName(file.fileName, ext), contentType: mime, mediaType, durationMs },
      );
    } finally {
      await removeQuietly(temp);
    }
  }

  /** Upload Audio File: any audio ffmpeg decodes, stored as WAV 8 kHz mono 16-bit PCM. */
  async uploadAudio(workspaceId: string, file: IncomingFile): Promise<StoredMedia> {
    const original = this.paths.tempFile();
    const converted = this.paths.tempFile('.wav');
    try {
      const { detected } = await receiveUpload(file.stream, original, admitAudio);
      const wav = await this.converter.toTelephonyWav(original, converted).catch((err: unknown) => {
        throw this.conversionFailure(err, detected);
      });
      if (wav.dataBytes === 0) throw UnsupportedMediaType('The file holds no audio samples.');
      return await this.storage.save(
        workspaceId,
        { path: converted, move: true },
        {
          fileName: safeFileName(file.fileName, 'wav'),
          contentType: TELEPHONY_WAV.contentType,
          mediaType: 'audio',
          durationMs: wav.durationMs,
        },
      );
    } finally {
      await Promise.all([removeQuietly(original), removeQuietly(converted)]);
    }
  }

  private conversionFailure(err: unknown, detected: FileTypeResult | undefined): unknown {
    if (!(err instanceof FfmpegError)) return err;
    if (err.reason === 'timeout') return ConversionTimedOut(this.config.media.ffmpegTimeoutMs / 1000);
    return UnsupportedMediaType(`The file could not be decoded as audio (detected: ${describe(detected)}).`);
  }
}

function admitMedia(detected: FileTypeResult | undefined): UploadLimit {
  const type = detected && MEDIA_UPLOAD_TYPES[detected.mime];
  if (!type) throw UnsupportedMediaType(`Detected ${describe(detected)}; allowed: ${MEDIA_UPLOAD_ALLOWED}.`);
  return { maxBytes: type.maxBytes, label: type.label };
}

function admitAudio(detected: FileTypeResult | undefined): UploadLimit {
  if (!mayBeAudio(detected)) throw UnsupportedMediaType(`Detected ${describe(detected)}, which is not audio; allowed: any audio format.`);
  return { maxBytes: AUDIO_UPLOAD_MAX_BYTES, label: 'audio files' };
}

function describe(detected: FileTypeResult | undefined): string {
  return detected ? detected.mime : 'an unrecognised format';
}
