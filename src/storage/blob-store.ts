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

/**
 * Where media bytes live, addressed by key. Local disk today; an object store (S3) would be
 * another implementation provided in StorageModule in place of {@link LocalDiskBlobStore}.
 */
export abstract class BlobStore {
  /** Stores the bytes under `key`; returns their size. */
  abstract put(key: string, source: BlobSource): Promise<number>;
  /** Answers a GET/HEAD for `key`, or null when no such blob exists. */
  abstract respond(key: string, request: IncomingMessage): Promise<BlobResponse | null>;
  abstract remove(key: string): Promise<void>;
  /** The bytes of `key`, streamed (an error on the stream when there is no such blob). */
  abstract read(key: string): Readable;
}
