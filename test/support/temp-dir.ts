import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh directory under the system's temp directory (the app's STORAGE_DIR, say), removed with all it holds on close. */
export class TempDir {
  private constructor(readonly path: string) {}

  static create(prefix: string): TempDir {
    return new TempDir(mkdtempSync(join(tmpdir(), prefix)));
  }

  close(): void {
    rmSync(this.path, { recursive: true, force: true });
  }
}
