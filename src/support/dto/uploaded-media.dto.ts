import { ApiProperty } from '@nestjs/swagger';
import type { MediaType } from '../../storage/media-file.entity.js';
import { MEDIA_TYPES } from '../../storage/media-type.js';
import type { StoredMedia } from '../../storage/media-storage.js';

/** A stored upload; `url` serves it without a token. */
export class UploadedMediaDto implements StoredMedia {
  @ApiProperty({ format: 'uuid' }) id: string;
  @ApiProperty({ description: 'Absolute, unguessable URL that serves the file without a token.' }) url: string;
  @ApiProperty({ example: 'welcome.wav' }) fileName: string;
  @ApiProperty({ description: 'Of the stored file (audio/wav for Upload Audio File).', example: 'audio/wav' }) contentType: string;
  @ApiProperty({ type: 'integer', description: 'Bytes of the stored file.' }) size: number;
  @ApiProperty({ enum: MEDIA_TYPES }) mediaType: MediaType;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Audio and video: the duration; otherwise null.' }) durationMs:
    number | null;

  static from(media: StoredMedia): UploadedMediaDto {
    return {
      id: media.id,
      url: media.url,
      fileName: media.fileName,
      contentType: media.contentType,
      size: media.size,
      mediaType: media.mediaType,
      durationMs: media.durationMs,
    };
  }
}
