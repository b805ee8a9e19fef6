import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

@Entity('tags')
@Index(['workspaceId', 'normalizedName'], { unique: true })
@Index(['workspaceId', 'creationTime'])
export class Tag {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid') workspaceId: string;
  @Column({ type: 'varchar', length: 100 }) name: string;
  /** Lower-cased, trimmed: tag names are unique regardless of case. */
  @Column({ type: 'varchar', length: 100 }) normalizedName: string;
  @Column({ type: 'varchar', length: 2048, nullable: true }) icon: string | null;
  @Column({ type: 'varchar', length: 1000, nullable: true }) description: string | null;
  @Column({ type: 'boolean', default: false }) isPinned: boolean;
  @CreateDateColumn({ type: 'timestamptz' }) creationTime: Date;
}
