import { Column, CreateDateColumn, UpdateDateColumn } from 'typeorm';

/** Creation and modification stamps shared by the entities whose DTOs expose them. */
export abstract class AuditedEntity {
  @CreateDateColumn({ type: 'timestamptz' }) creationTime: Date;
  @Column({ type: 'uuid', nullable: true }) creatorId: string | null;
  @UpdateDateColumn({ type: 'timestamptz' }) lastModificationTime: Date;
  @Column({ type: 'uuid', nullable: true }) lastModifierId: string | null;
}
