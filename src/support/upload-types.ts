import type { FileTypeResult } from 'file-type';
import type { MediaType } from '../storage/media-file.entity.js';
import { formatMegabytes } from './support.errors.js';

const MB = 1024 * 1024;

export interface UploadType {
  mediaType: MediaType;
  maxBytes: number;
  label: string;
}

/** Upload Image, Video, or PDF: what the bytes may be (by MIME type as file-type detects it) and how large. */
export const MEDIA_UPLOAD_TYPES: Record<string, UploadType> = {
  'image/jpeg': { mediaType: 'image', maxBytes: 5 * MB, label: 'JPEG images' },
  'image/png': { mediaType: 'image', maxBytes: 5 * MB, label: 'PNG images' },
  'video/mp4': { mediaType: 'video', maxBytes: 16 * MB, label: 'MP4 videos' },
  'video/3gpp': { mediaType: 'video', maxBytes: 16 * MB, label: '3GP videos' },
  'application/pdf': { mediaType: 'document', maxBytes: 100 * MB, label: 'PDF documents' },
};

export const MEDIA_UPLOAD_ALLOWED = Object.entries(MEDIA_UPLOAD_TYPES)
  .map(([mime, type]) => `${mime} up to ${formatMegabytes(type.maxBytes)}`)
  .join(', ');

/** Upload Audio File: any audio ffmpeg decodes, before conversion. */
export const AUDIO_UPLOAD_MAX_BYTES = 10 * MB;

/** Containers file-type names outside audio/* and video/* that may still hold only audio. */
const AUDIO_CONTAINERS = new Set(['application/ogg', 'application/vnd.ms-asf']);

/** Whether sniffed bytes could be audio: unrecognised bytes get the benefit of the doubt (ffmpeg decides). */
export function mayBeAudio(detected: FileTypeResult | undefined): boolean {
  return !detected || /^(audio|video)\//.test(detected.mime) || AUDIO_CONTAINERS.has(detected.mime);
}
