import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';
import type { MediaType } from './media-type.js';

export { MEDIA_TYPES, type MediaType } from './media-type.js';


/** A stored file of a workspace, served at an unguessable URL (`/media/<key>/<fileName>`). */
@Entity('media_files')
@Index(['workspaceId', 'creationTime'])
// The public media route looks files up by key alone: the key is the credential.
@Index(['key'], { unique: true })
export class MediaFile {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid') workspaceId: string;
  /** 192 random bits, base64url. */
  @Column({ type: 'varchar', length: 64 }) key: string;
  @Column({ type: 'varchar', length: 255 }) fileName: string;
  @Column({ type: 'varchar', length: 100 }) contentType: string;
  @Column({ type: 'bigint', transformer: { to: (v: number) => v, from: (v: string) => Number(v) } }) size: number;
  @Column({ type: 'varchar', length: 16 }) mediaType: MediaType;
  @Column({ type: 'integer', nullable: true }) durationMs: number | null;
  @CreateDateColumn({ type: 'timestamptz' }) creationTime: Date;
}
