import { Module } from '@nestjs/common';
import { BlobStore } from './blob-store.js';
import { LocalDiskBlobStore } from './local-disk-blob-store.js';
import { MediaController } from './media.controller.js';
import { MediaStorage } from './media-storage.js';
import { StoragePaths } from './storage-paths.js';

/** Media files of workspaces: stored, recorded and served at public URLs. */
@Module({
  controllers: [MediaController],
  providers: [StoragePaths, { provide: BlobStore, useClass: LocalDiskBlobStore }, MediaStorage],
  exports: [MediaStorage, StoragePaths],
})
export class StorageModule {}
