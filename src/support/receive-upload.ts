import { createWriteStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileTypeFromBuffer, type FileTypeResult } from 'file-type';
import { DomainError } from '../common/errors/domain-error.js';
import { removeQuietly } from '../storage/storage-paths.js';
import { EmptyFile, FileTooLarge, MalformedUpload } from './support.errors.js';

/** Enough leading bytes for file-type to recognise the formats we take. */
const SNIFF_BYTES = 4100;

export interface UploadLimit {
  maxBytes: number;
  /** What the limit is for, in the 413 message ("PNG images"). */
  label: string;
}

export interface ReceivedUpload {
  size: number;
  /** The type file-type recognised in the first bytes, if any. */
  detected: FileTypeResult | undefined;
}

/**
 * Streams an upload into `target` without holding it in memory. The type is decided from the
 * first bytes: `admit` returns the size limit for it or throws (415). Past the limit the upload is
 * refused at once (413), before the rest of the body is read. On any failure `target` is removed.
 */
export async function receiveUpload(
  source: Readable,
  target: string,
  admit: (detected: FileTypeResult | undefined) => UploadLimit,
): Promise<ReceivedUpload> {
  let size = 0;
  let detected: FileTypeResult | undefined;
  let limit: UploadLimit | undefined;
  let sourceFailed = false;
  source.once('error', () => (sourceFailed = true));

  const decide = async (head: Buffer) => {
    if (head.length === 0) throw EmptyFile();
    detected = await fileTypeFromBuffer(head);
    limit = admit(detected);
  };
  const checkSize = () => {
    if (limit && size > limit.maxBytes) throw FileTooLarge(limit.maxBytes, limit.label);
  };

  async function* sniffAndLimit(chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
    let head: Buffer[] = [];
    for await (const chunk of chunks) {
      size += chunk.length;
      if (limit) {
        checkSize();
        yield chunk;
        continue;
      }
      head.push(chunk);
      if (size < SNIFF_BYTES) continue;
      await decide(Buffer.concat(head));
      checkSize();
      yield* head;
      head = [];
    }
    if (!limit) {
      await decide(Buffer.concat(head));
      checkSize();
      yield* head;
    }
  }

  try {
    await pipeline(source, sniffAndLimit, createWriteStream(target, { flags: 'wx' }));
  } catch (err) {
    await removeQuietly(target);
    if (err instanceof DomainError) throw err;
    if (sourceFailed) throw MalformedUpload();
    throw err;
  }
  return { size, detected };
}
