import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { newId } from '../../common/id.js';
import { inTransaction } from '../../database/transactions.js';
import { WorkspaceScopedRepository } from '../../database/workspace-scoped.repository.js';
import { WhatsAppMediaUpload } from './whatsapp-media-upload.entity.js';

@Injectable()
export class WhatsAppMediaUploadsRepository extends WorkspaceScopedRepository<WhatsAppMediaUpload> {
  constructor(@InjectRepository(WhatsAppMediaUpload) repository: Repository<WhatsAppMediaUpload>) {
    super(repository);
  }

  /** The provider's id of the file on the channel, if it was uploaded there and expires after `validAfter`. */
  async findUsable(workspaceId: string, channelId: string, mediaFileId: string, validAfter: Date): Promise<string | null> {
    const [row] = await this.sql<{ provider_media_id: string }>(
      workspaceId,
      `SELECT provider_media_id FROM whatsapp_media_uploads
        WHERE workspace_id = $1 AND channel_id = $2 AND media_file_id = $3 AND expires_at > $4`,
      [channelId, mediaFileId, validAfter],
    );
    return row?.provider_media_id ?? null;
  }

  /** Keeps (or replaces) the channel's upload of the file. */
  async remember(
    workspaceId: string,
    upload: Pick<WhatsAppMediaUpload, 'channelId' | 'mediaFileId' | 'providerMediaId' | 'uploadedAt' | 'expiresAt'>,
  ): Promise<void> {
    await this.sql(
      workspaceId,
      `INSERT INTO whatsapp_media_uploads (id, workspace_id, channel_id, media_file_id, provider_media_id, uploaded_at, expires_at)
       VALUES ($2, $1, $3, $4, $5, $6, $7)
       ON CONFLICT (workspace_id, channel_id, media_file_id) DO UPDATE
          SET provider_media_id = EXCLUDED.provider_media_id, uploaded_at = EXCLUDED.uploaded_at, expires_at = EXCLUDED.expires_at
        WHERE whatsapp_media_uploads.workspace_id = $1`,
      [newId(), upload.channelId, upload.mediaFileId, upload.providerMediaId, upload.uploadedAt, upload.expiresAt],
    );
  }

  /**
   * Runs `work` in a transaction holding a lock on the file's upload to the channel, with this
   * repository bound to it: processes that want the same upload at once take turns, so the
   * second finds the first one's id instead of uploading again.
   */
  exclusively<T>(channelId: string, mediaFileId: string, work: (uploads: this) => Promise<T>): Promise<T> {
    return inTransaction(async () => {
      await this.manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`whatsapp-media:${channelId}:${mediaFileId}`]);
      return work(this);
    });
  }
}
