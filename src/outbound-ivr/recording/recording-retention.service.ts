import { Injectable, type OnModuleInit } from '@nestjs/common';
import { AppConfig } from '../../config/app-config.js';
import { Retention } from '../../queue/retention.service.js';
import { MediaStorage } from '../../storage/media-storage.js';
import { OutboundIvrRequestsRepository } from '../outbound-ivr-requests.repository.js';

/**
 * Recordings are kept RECORDING_RETENTION after they were stored (API.md §16): the retention job
 * takes them off their calls, then deletes their files (row and bytes). Registered under
 * `media_files`, the table the files leave (and the one vacuumed after).
 */
@Injectable()
export class RecordingRetention implements OnModuleInit {
  constructor(
    private readonly retention: Retention,
    private readonly requests: OutboundIvrRequestsRepository,
    private readonly storage: MediaStorage,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.retention.register({
      table: 'media_files',
      keepMs: this.config.voice.recordingRetentionMs,
      deleteBatch: async (cutoff, limit) => {
        const released = await this.requests.releaseRecordingsUnscopedBefore(cutoff, limit);
        for (const file of released) await this.storage.discard(file.workspaceId, file.mediaId);
        return released.length;
      },
    });
  }
}
