import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A stored file (media_files) uploaded to a channel's WhatsApp provider: the id the provider gave it,
 * sent instead of a link until it expires (Meta keeps uploads 30 days).
 */
@Entity('whatsapp_media_uploads')
@Index(['workspaceId', 'channelId', 'mediaFileId'], { unique: true })
export class WhatsAppMediaUpload {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid') workspaceId: string;
  @Column('uuid') channelId: string;
  @Column('uuid') mediaFileId: string;
  /** The provider's media id. */
  @Column({ type: 'varchar', length: 200 }) providerMediaId: string;
  @Column({ type: 'timestamptz' }) uploadedAt: Date;
  @Column({ type: 'timestamptz' }) expiresAt: Date;
}
