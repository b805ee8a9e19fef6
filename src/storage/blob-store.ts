import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';

/** Bytes to store: a file on local disk (moved when `move` is set, else copied) or a buffer. */
export type BlobSource = { path: string; move?: boolean } | { buffer: Buffer };

/**
 * An HTTP answer for a stored blob, honouring the request's Range and conditional headers:
 * 200, 206 or 304 with the body to send, or a 4xx (unsatisfiable range, failed precondition) without one.
 */
export interface BlobResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: Readable | null;
}

/** What the `media_files` row records of a blob: a store may answer conditional requests from it. */
export interface BlobInfo {
  size: number;
  storedAt: Date;
}

/**
 * Where media bytes live, addressed by key: local disk under STORAGE_DIR (the default), or an
 * S3-compatible bucket when S3_BUCKET is set (StorageModule picks one).
 */
export abstract class BlobStore {
  /** Stores the bytes under `key`; returns their size. */
  abstract put(key: string, source: BlobSource): Promise<number>;
  /** Answers a GET/HEAD for `key`, or null when no such blob exists. */
  abstract respond(key: string, request: IncomingMessage, info: BlobInfo): Promise<BlobResponse | null>;
  abstract remove(key: string): Promise<void>;
  /** The bytes of `key`, streamed (rejected, or an error on the stream, when there is no such blob). */
  abstract read(key: string): Promise<Readable>;
  /** Readiness: null when the store answers, else what is wrong. */
  abstract check(): Promise<string | null>;
}
