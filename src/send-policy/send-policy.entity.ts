import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/**
 * A workspace's send policy (API.md §13): the parts this version keeps. A null list is the
 * defaults ({@link DEFAULT_STOP_WORDS}, {@link DEFAULT_START_WORDS}); a workspace without a row has them all.
 */
@Entity('send_policies')
export class SendPolicy {
  @PrimaryColumn('uuid') workspaceId: string;
  /** Stop words as the workspace wrote them (trimmed, inner spaces collapsed); null: the defaults. */
  @Column({ type: 'jsonb', nullable: true }) stopWords: string[] | null;
  /** Start words likewise. */
  @Column({ type: 'jsonb', nullable: true }) startWords: string[] | null;
  @UpdateDateColumn({ type: 'timestamptz' }) lastModificationTime: Date;
}
