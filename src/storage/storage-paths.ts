import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../config/app-config.js';

const STALE_TEMP_AFTER_MS = 60 * 60 * 1000;

/**
 * The directories under STORAGE_DIR: `media/` for the local blob store (made by it, so a process
 * storing in S3 has none), `tmp/` for uploads being received, conversions and synthesized speech.
 * Both on one file system, so a finished temp file moves into local storage by rename.
 */
@Injectable()
export class StoragePaths implements OnModuleInit {
  readonly mediaDir: string;
  readonly tempDir: string;
  private readonly logger = new Logger('Storage');

  constructor(config: AppConfig) {
    const root = resolve(config.storageDir);
    this.mediaDir = join(root, 'media');
    this.tempDir = join(root, 'tmp');
    mkdirSync(this.tempDir, { recursive: true });
  }

  /** A fresh path in the temp directory; nothing is created. */
  tempFile(extension = ''): string {
    return join(this.tempDir, `${Date.now()}-${randomBytes(8).toString('hex')}${extension}`);
  }

  /** Deletes temp files left behind by a process that died mid-upload. */
  async onModuleInit(): Promise<void> {
    const cutoff = Date.now() - STALE_TEMP_AFTER_MS;
    for (const name of await readdir(this.tempDir)) {
      const path = join(this.tempDir, name);
      const info = await stat(path).catch(() => null);
      if (info && info.mtimeMs < cutoff) {
        await removeQuietly(path);
        this.logger.warn(`Removed stale temp file ${name}`);
      }
    }
  }
}

/** Removes a file if it exists; cleanup must never mask the error that caused it. */
export async function removeQuietly(path: string): Promise<void> {
  await rm(path, { force: true }).catch(() => undefined);
}
