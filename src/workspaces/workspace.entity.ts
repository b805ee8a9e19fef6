import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

@Entity('workspaces')
export class Workspace {
  @PrimaryColumn('uuid') id: string;
  @Column({ type: 'varchar', length: 200 }) name: string;
  /** Standard Webhooks signing secret (`whsec_…`), sealed with the encryption key. */
  @Column({ type: 'text' }) webhookSecretSealed: string;
  /** The secret before the last rotation, still signed with until `previousWebhookSecretExpiresAt`. */
  @Column({ type: 'text', nullable: true }) previousWebhookSecretSealed: string | null;
  @Column({ type: 'timestamptz', nullable: true }) previousWebhookSecretExpiresAt: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) creationTime: Date;
}
