import { constants, createReadStream, mkdirSync } from 'node:fs';
import { copyFile, mkdir, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { dirname, join } from 'node:path';
import { Injectable } from '@nestjs/common';
import send from '@fastify/send';
import { BlobStore, type BlobResponse, type BlobSource } from './blob-store.js';
import { StoragePaths } from './storage-paths.js';

/** Blobs as files under STORAGE_DIR/media/<first two key characters>/<key>. */
@Injectable()
export class LocalDiskBlobStore extends BlobStore {
  constructor(private readonly paths: StoragePaths) {
    super();
    mkdirSync(paths.mediaDir, { recursive: true });
  }

  async put(key: string, source: BlobSource): Promise<number> {
    const target = join(this.paths.mediaDir, this.relativePath(key));
    await mkdir(dirname(target), { recursive: true });
    if ('buffer' in source) await writeFile(target, source.buffer, { flag: 'wx' });
    else if (source.move) await moveFile(source.path, target);
    else await copyFile(source.path, target, constants.COPYFILE_EXCL);
    return (await stat(target)).size;
  }

  async respond(key: string, request: IncomingMessage): Promise<BlobResponse | null> {
    // Range, If-None-Match and If-Modified-Since are handled by @fastify/send from the file itself;
    // the content never changes under a key, so caches may keep it for good.
    const result = await send(request, `/${this.relativePath(key)}`, {
      root: this.paths.mediaDir,
      index: false,
      dotfiles: 'deny',
      maxAge: '365d',
      immutable: true,
    });
    if (result.type === 'file') return { statusCode: result.statusCode, headers: result.headers, body: result.stream };
    if (result.statusCode === 404 || result.type === 'directory') return null;
    result.stream.destroy();
    return { statusCode: result.statusCode, headers: {}, body: null };
  }

  async remove(key: string): Promise<void> {
    await rm(join(this.paths.mediaDir, this.relativePath(key)), { force: true });
  }

  read(key: string): Promise<Readable> {
    return Promise.resolve(createReadStream(join(this.paths.mediaDir, this.relativePath(key))));
  }

  /** The directory is this process's own: nothing to reach. */
  check(): Promise<string | null> {
    return Promise.resolve(null);
  }

  private relativePath(key: string): string {
    return `${key.slice(0, 2)}/${key}`;
  }
}

/** Rename, or copy and delete when the source is on another file system. */
async function moveFile(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    await copyFile(from, to, constants.COPYFILE_EXCL);
    await unlink(from);
  }
}
