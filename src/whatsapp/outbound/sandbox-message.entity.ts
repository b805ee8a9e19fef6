import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/** What the sandbox provider "sent": the exact Cloud API request body, readable by operators. */
@Entity('whatsapp_sandbox_messages')
@Index(['channelId', 'creationTime'])
/** Retention deletes messages by age across workspaces. */
@Index('ix_whatsapp_sandbox_messages_creation_time', ['creationTime'])
export class SandboxMessage {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid') workspaceId: string;
  @Column('uuid') channelId: string;
  /** The provider message id given back (`wamid.…`). */
  @Column({ type: 'varchar', length: 100 }) providerMessageId: string;
  @Column({ type: 'jsonb' }) request: Record<string, unknown>;
  @CreateDateColumn({ type: 'timestamptz' }) creationTime: Date;
}
