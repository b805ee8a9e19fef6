import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { MissingWorkspaceError, WorkspaceScopedRepository } from '../database/workspace-scoped.repository.js';
import { MediaFile } from './media-file.entity.js';

/** The `media_files` rows of stored files. */
@Injectable()
export class MediaFilesRepository extends WorkspaceScopedRepository<MediaFile> {
  constructor(@InjectRepository(MediaFile) repository: Repository<MediaFile>) {
    super(repository);
  }

  /** Inserts a new file's row (one statement, no read first). */
  async insert(workspaceId: string, file: MediaFile): Promise<void> {
    this.scope(workspaceId);
    if (file.workspaceId !== workspaceId) throw new MissingWorkspaceError('MediaFile of another workspace');
    await this.repository.insert(file);
  }

  /** By key alone: the public media route has no token, and the unguessable key is the credential. */
  findUnscopedByKey(key: string): Promise<MediaFile | null> {
    return this.unscoped('the public media URL carries no token; its 192-bit key is the credential').findOne({ where: { key } });
  }
}
