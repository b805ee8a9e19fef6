import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../../config/app-config.js';

const VERSION = 'v1';

/**
 * Encrypts secrets at rest (channel credentials, webhook signing secrets) with AES-256-GCM.
 * The key is `ENCRYPTION_KEY`; outside production, when it is unset, a key is generated once
 * and kept in `STORAGE_DIR/.encryption-key` so local data stays readable across restarts.
 */
@Injectable()
export class SecretBox {
  private readonly key: Buffer;

  constructor(config: AppConfig) {
    this.key = config.encryptionKey ?? SecretBox.localDevelopmentKey(config.storageDir);
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64'), cipher.getAuthTag().toString('base64'), data.toString('base64')].join(':');
  }

  open(sealed: string): string {
    const [version, iv, tag, data] = sealed.split(':');
    if (version !== VERSION || !iv || !tag || data === undefined) throw new Error('Unrecognised sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
  }

  sealJson(value: unknown): string {
    return this.seal(JSON.stringify(value));
  }

  openJson<T>(sealed: string): T {
    return JSON.parse(this.open(sealed)) as T;
  }

  private static localDevelopmentKey(storageDir: string): Buffer {
    const file = join(storageDir, '.encryption-key');
    if (!existsSync(file)) {
      mkdirSync(storageDir, { recursive: true });
      writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
      new Logger('SecretBox').warn(`ENCRYPTION_KEY is not set: generated a development key in ${file}`);
    }
    return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
  }
}
