import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

export enum WorkspaceUserRole {
  Owner = 1,
  Member = 2,
}

@Entity('workspace_users')
@Index(['workspaceId', 'email'], { unique: true })
@Index(['workspaceId', 'userId'], { unique: true })
export class WorkspaceUser {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid') workspaceId: string;
  /** The user's (or AI agent's) own id, used by assignment. */
  @Column('uuid') userId: string;
  @Column({ type: 'varchar', length: 320 }) email: string;
  @Column({ type: 'varchar', length: 200 }) name: string;
  @Column({ type: 'varchar', length: 2048, nullable: true }) logoUrl: string | null;
  @Column({ type: 'smallint' }) role: WorkspaceUserRole;
  @Column({ type: 'boolean', default: false }) isAiAgent: boolean;
  @Column({ type: 'varchar', length: 20, nullable: true }) phoneNumber: string | null;
  @CreateDateColumn({ type: 'timestamptz' }) creationTime: Date;
}
