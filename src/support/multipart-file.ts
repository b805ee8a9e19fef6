import type { Readable } from 'node:stream';
import type { FastifyMultipartBaseOptions } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { FileRequired, MalformedUpload } from './support.errors.js';

/** A file arriving in a multipart request, not yet read. */
export interface IncomingFile {
  stream: Readable;
  /** As the client named it; only its stem is kept. */
  fileName: string | undefined;
}

/**
 * @fastify/multipart settings for the whole app. Upload routes enforce their own, type-dependent
 * limits while streaming; the busboy file limit only backs them up.
 */
export const MULTIPART_OPTIONS: FastifyMultipartBaseOptions = {
  limits: { files: 1, fileSize: 200 * 1024 * 1024, fields: 10, fieldSize: 64 * 1024, parts: 20, headerPairs: 100 },
};

/** The request's first file part, which must be in `field` (name matched case-insensitively). */
export async function multipartFile(request: FastifyRequest, field: string): Promise<IncomingFile> {
  if (!request.isMultipart()) throw FileRequired(field);
  const part = await request.file().catch(() => {
    throw MalformedUpload();
  });
  if (!part) throw FileRequired(field);
  if (part.fieldname.toLowerCase() !== field.toLowerCase()) {
    part.file.destroy();
    throw FileRequired(field);
  }
  return { stream: part.file, fileName: part.filename };
}
