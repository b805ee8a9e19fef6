import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../config/app-config.js';
import { BlobStore } from './blob-store.js';
import { LocalDiskBlobStore } from './local-disk-blob-store.js';
import { MediaFile } from './media-file.entity.js';
import { MediaFilesRepository } from './media-files.repository.js';
import { MediaController } from './media.controller.js';
import { MediaStorage } from './media-storage.js';
import { S3BlobStore } from './s3-blob-store.js';
import { StoragePaths } from './storage-paths.js';

/** Media files of workspaces: stored, recorded and served at public URLs. */
@Module({
  imports: [TypeOrmModule.forFeature([MediaFile])],
  controllers: [MediaController],
  providers: [
    StoragePaths,
    {
      // An S3-compatible bucket when S3_BUCKET is set, else local disk (no configuration needed).
      provide: BlobStore,
      inject: [AppConfig, StoragePaths],
      useFactory: (config: AppConfig, paths: StoragePaths): BlobStore =>
        config.objectStorage ? new S3BlobStore(config.objectStorage) : new LocalDiskBlobStore(paths),
    },
    MediaFilesRepository,
    MediaStorage,
  ],
  exports: [MediaStorage, StoragePaths, BlobStore],
})
export class StorageModule {}
