import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { ObjectStorageConfig } from '../config/app-config.js';
import { BlobStore, type BlobInfo, type BlobResponse, type BlobSource } from './blob-store.js';
import { planResponse } from './conditional-response.js';
import { removeQuietly } from './storage-paths.js';
import { StorageUnavailable } from './storage.errors.js';

/** Written at boot and read by readiness: proves the bucket exists and the credentials may write and read it. */
const CHECK_OBJECT = '.storage-check';
const READINESS_TIMEOUT_MS = 1000;
const MAX_CONNECTIONS = 256;

/**
 * Blobs as objects of an S3-compatible bucket, under `S3_KEY_PREFIX`. Every process (API replicas,
 * workers) on any machine sees the same blobs; STORAGE_DIR keeps only temp files.
 *
 * Media URLs are streamed through the API rather than redirected to presigned URLs: the public URL
 * handed to providers and in webhooks stays valid for good (a presigned URL expires within 7 days),
 * the bucket stays private and need not be reachable from outside, and the answer keeps the headers
 * that make stored files harmless on our origin (CSP sandbox, nosniff, attachment). Range and
 * conditional requests are answered from the `media_files` row (size, time), so serving costs one
 * ranged GET to the bucket; responses are immutable, so a CDN in front takes the repeated reads.
 */
export class S3BlobStore extends BlobStore implements OnModuleInit, OnModuleDestroy {
  private readonly client: S3Client;
  private readonly logger = new Logger('Storage');

  constructor(private readonly config: ObjectStorageConfig) {
    super();
    this.client = new S3Client({
      region: config.region,
      endpoint: config.endpoint,
      forcePathStyle: config.forcePathStyle,
      credentials: config.credentials,
      maxAttempts: 3,
      // A storage that does not answer fails the request in seconds instead of holding it. Each media
      // response holds a connection to the bucket while it streams: more than the SDK's 50 at once.
      requestHandler: {
        connectionTimeout: 3000,
        requestTimeout: 30_000,
        httpAgent: { maxSockets: MAX_CONNECTIONS },
        httpsAgent: { maxSockets: MAX_CONNECTIONS },
      },
      // Checksums only where S3 requires them: the SDK's default trailing checksum (aws-chunked
      // uploads) is refused by many S3-compatible services; TLS protects the bytes in transit.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // The SDK's own notes (an upload it will not retry) at debug level: failures are logged once, below.
      logger: { debug: () => undefined, info: () => undefined, warn: (...notes: unknown[]) => this.logger.debug(notes.join(' ')), error: (...notes: unknown[]) => this.logger.debug(notes.join(' ')) },
    });
  }

  /** A bucket that is missing, unreachable or closed to these credentials stops the boot, named. */
  async onModuleInit(): Promise<void> {
    try {
      await this.writeCheckObject();
    } catch (err) {
      throw new Error(`Object storage is not usable: bucket "${this.config.bucket}" at ${this.where()}: ${describe(err)}`, { cause: err });
    }
    this.logger.log(`Media in bucket "${this.config.bucket}" at ${this.where()}`);
  }

  onModuleDestroy(): void {
    this.client.destroy();
  }

  async put(key: string, source: BlobSource): Promise<number> {
    const size = 'buffer' in source ? source.buffer.length : (await stat(source.path)).size;
    const body = 'buffer' in source ? source.buffer : createReadStream(source.path);
    try {
      await this.call(() =>
        this.client.send(new PutObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(key), Body: body, ContentLength: size })),
      );
    } finally {
      if (body instanceof Readable) body.destroy(); // a failed upload may leave the file open
    }
    if ('path' in source && source.move) await removeQuietly(source.path);
    return size;
  }

  async respond(key: string, request: IncomingMessage, info: BlobInfo): Promise<BlobResponse | null> {
    const plan = planResponse(request.headers, {
      size: info.size,
      // The content under a key never changes: size and time name it as well as a hash would.
      etag: `W/"${info.size.toString(16)}-${info.storedAt.getTime().toString(16)}"`,
      lastModified: info.storedAt,
    });
    if (plan.statusCode === 412 || plan.statusCode === 416) return { statusCode: plan.statusCode, headers: plan.headers, body: null };
    if (plan.statusCode === 304) return { statusCode: 304, headers: plan.headers, body: Readable.from([]) };
    const input = { Bucket: this.config.bucket, Key: this.objectKey(key) };
    if (request.method === 'HEAD') {
      const found = await this.call(() => this.client.send(new HeadObjectCommand(input)));
      return found && { statusCode: plan.statusCode, headers: plan.headers, body: Readable.from([]) };
    }
    const range = plan.bytes && `bytes=${plan.bytes.start}-${plan.bytes.end}`;
    const object = await this.call(() => this.client.send(new GetObjectCommand({ ...input, Range: range ?? undefined })));
    return object && { statusCode: plan.statusCode, headers: plan.headers, body: object.Body as Readable };
  }

  async remove(key: string): Promise<void> {
    await this.call(() => this.client.send(new DeleteObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(key) })));
  }

  async read(key: string): Promise<Readable> {
    const object = await this.call(() => this.client.send(new GetObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(key) })));
    if (!object) throw new Error(`No object ${this.objectKey(key)} in bucket "${this.config.bucket}"`);
    return object.Body as Readable;
  }

  /** Readiness: the bucket answers this process within a second (the check object written again if someone removed it). */
  async check(): Promise<string | null> {
    const abortSignal = AbortSignal.timeout(READINESS_TIMEOUT_MS);
    try {
      try {
        await this.client.send(new HeadObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(CHECK_OBJECT) }), { abortSignal });
      } catch (err) {
        if (!(err instanceof S3ServiceException && err.$metadata.httpStatusCode === 404)) throw err;
        await this.writeCheckObject(abortSignal);
      }
      return null;
    } catch (err) {
      return `bucket "${this.config.bucket}" at ${this.where()}: ${describe(err)}`;
    }
  }

  private async writeCheckObject(abortSignal?: AbortSignal): Promise<void> {
    await this.client.send(new PutObjectCommand({ Bucket: this.config.bucket, Key: this.objectKey(CHECK_OBJECT), Body: 'ok' }), { abortSignal });
  }

  /** The call's result, null when the object does not exist; any other failure is a 503 (logged). */
  private async call<T>(operation: () => Promise<T>): Promise<T | null> {
    try {
      return await operation();
    } catch (err) {
      if (err instanceof S3ServiceException && err.$metadata.httpStatusCode === 404 && err.name !== 'NoSuchBucket') return null;
      this.logger.warn(`Object storage failed: ${describe(err)}`);
      throw StorageUnavailable();
    }
  }

  private objectKey(key: string): string {
    return `${this.config.keyPrefix}${key}`;
  }

  private where(): string {
    return this.config.endpoint ?? `AWS S3 ${this.config.region}`;
  }
}

function describe(err: unknown): string {
  if (err instanceof S3ServiceException) return `${err.name} (HTTP ${err.$metadata.httpStatusCode ?? '?'}): ${err.message}`;
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    return code ? `${code}: ${err.message}` : `${err.name}: ${err.message}`;
  }
  return String(err);
}
