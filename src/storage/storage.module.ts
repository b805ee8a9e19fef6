import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BlobStore } from './blob-store.js';
import { LocalDiskBlobStore } from './local-disk-blob-store.js';
import { MediaFile } from './media-file.entity.js';
import { MediaFilesRepository } from './media-files.repository.js';
import { MediaController } from './media.controller.js';
import { MediaStorage } from './media-storage.js';
import { StoragePaths } from './storage-paths.js';

/** Media files of workspaces: stored, recorded and served at public URLs. */
@Module({
  imports: [TypeOrmModule.forFeature([MediaFile])],
  controllers: [MediaController],
  providers: [StoragePaths, { provide: BlobStore, useClass: LocalDiskBlobStore }, MediaFilesRepository, MediaStorage],
  exports: [MediaStorage, StoragePaths],
})
export class StorageModule {}
