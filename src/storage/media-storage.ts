import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { HttpException, Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config.js';
import { newId } from '../common/id.js';
import { BlobStore, type BlobResponse, type BlobSource } from './blob-store.js';
import { safeFileName } from './file-names.js';
import type { MediaFile, MediaType } from './media-file.entity.js';
import { MediaFilesRepository } from './media-files.repository.js';
import { storedMediaHeaders } from './media-headers.js';
import { MediaNotFound } from './storage.errors.js';

export interface MediaMeta {
  fileName: string;
  contentType: string;
  mediaType: MediaType;
  durationMs: number | null;
}

/** A stored file as callers see it: `url` serves it without a token. */
export interface StoredMedia {
  id: string;
  url: string;
  fileName: string;
  contentType: string;
  size: number;
  mediaType: MediaType;
  durationMs: number | null;
}

const KEY_PATTERN = /^[A-Za-z0-9_-]{32}$/;

/**
 * Workspace media: bytes in the {@link BlobStore} under an unguessable key, a `media_files` row
 * per file, and the absolute public URL under PUBLIC_BASE_URL. Needs no request context, so
 * queue workers store files the same way the upload routes do.
 */
@Injectable()
export class MediaStorage {
  constructor(
    private readonly files: MediaFilesRepository,
    private readonly blobs: BlobStore,
    private readonly config: AppConfig,
  ) {}

  async save(workspaceId: string, source: BlobSource, meta: MediaMeta): Promise<StoredMedia> {
    const key = randomBytes(24).toString('base64url');
    const size = await this.blobs.put(key, source);
    const file = this.files.create(workspaceId, {
      id: newId(),
      key,
      fileName: safeFileName(meta.fileName),
      contentType: meta.contentType,
      size,
      mediaType: meta.mediaType,
      durationMs: meta.durationMs === null ? null : Math.round(meta.durationMs),
    });
    try {
      await this.files.insert(workspaceId, file);
    } catch (err) {
      await this.blobs.remove(key);
      throw err;
    }
    return this.toStored(file);
  }

  /** A stored file of the workspace by its id, or null (another workspace's id is null too). */
  async findById(workspaceId: string, id: string): Promise<StoredMedia | null> {
    const file = await this.files.findById(workspaceId, id);
    return file ? this.toStored(file) : null;
  }

  /** Removes a stored file of the workspace (its row, then its bytes); unknown ids are ignored. */
  async discard(workspaceId: string, id: string): Promise<void> {
    const file = await this.files.findById(workspaceId, id);
    if (!file) return;
    await this.files.delete(workspaceId, { id });
    await this.blobs.remove(file.key);
  }

  /** The HTTP answer for a public media URL; an unknown key or a file name not its own is a 404. */
  async respond(key: string, fileName: string, request: IncomingMessage): Promise<BlobResponse> {
    const file = KEY_PATTERN.test(key) ? await this.files.findUnscopedByKey(key) : null;
    if (!file || file.fileName !== fileName) throw MediaNotFound();
    const response = await this.blobs.respond(key, request, { size: file.size, storedAt: file.creationTime });
    if (!response) throw MediaNotFound();
    if (!response.body) throw new HttpException('The requested range or precondition cannot be satisfied.', response.statusCode);
    return {
      ...response,
      headers: { ...response.headers, ...storedMediaHeaders(file.contentType, file.fileName) },
    };
  }

  /** A stored file of the workspace (another workspace's id is null, like an unknown one). */
  async find(workspaceId: string, id: string): Promise<StoredMedia | null> {
    const file = await this.files.findById(workspaceId, id);
    return file && this.toStored(file);
  }

  /** The bytes of a stored file of the workspace, streamed; null when there is no such file. */
  async open(workspaceId: string, id: string): Promise<{ file: StoredMedia; stream: Readable } | null> {
    const file = await this.files.findById(workspaceId, id);
    return file && { file: this.toStored(file), stream: await this.blobs.read(file.key) };
  }

  /**
   * The bytes behind one of our own public media URLs, when the file belongs to the workspace;
   * null for any other URL (a file elsewhere is never fetched from here).
   */
  async openOwnUrl(workspaceId: string, url: string): Promise<Readable | null> {
    const prefix = `${this.config.http.publicBaseUrl}/media/`;
    if (!url.startsWith(prefix)) return null;
    const [key, fileName] = url.slice(prefix.length).split('/');
    const file = key && KEY_PATTERN.test(key) ? await this.files.findUnscopedByKey(key) : null;
    if (!file || file.workspaceId !== workspaceId || file.fileName !== fileName) return null;
    return this.blobs.read(file.key);
  }

  private toStored(file: MediaFile): StoredMedia {
    return {
      id: file.id,
      url: `${this.config.http.publicBaseUrl}/media/${file.key}/${file.fileName}`,
      fileName: file.fileName,
      contentType: file.contentType,
      size: file.size,
      mediaType: file.mediaType,
      durationMs: file.durationMs,
    };
  }
}
