import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

@Entity('service_accounts')
@Index(['workspaceId', 'creationTime'])
export class ServiceAccount {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid') workspaceId: string;
  @Column({ type: 'varchar', length: 200 }) name: string;
  @Index({ unique: true }) @Column({ type: 'varchar', length: 64 }) clientId: string;
  /** scrypt hash; the secret itself is shown once, at creation. */
  @Column({ type: 'text' }) clientSecretHash: string;
  @Column({ type: 'timestamptz', nullable: true }) revokedAt: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) creationTime: Date;
}
