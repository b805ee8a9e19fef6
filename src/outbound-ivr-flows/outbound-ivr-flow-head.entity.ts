import { Column, CreateDateColumn, DeleteDateColumn, Entity, Index, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** A flow's name and current version; its definitions live in {@link OutboundIvrFlowVersion}. Soft-deleted. */
@Entity('outbound_ivr_flows')
@Index(['workspaceId', 'creationTime'])
export class OutboundIvrFlowHead {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid') workspaceId: string;
  @Column({ type: 'varchar', length: 200 }) name: string;
  @Column({ type: 'varchar', length: 1000, nullable: true }) description: string | null;
  /** The version a new call runs. */
  @Column({ type: 'int' }) version: number;
  @CreateDateColumn({ type: 'timestamptz' }) creationTime: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) lastModificationTime: Date;
  /** Deleted flows keep their versions so that calls already running one can finish. */
  @DeleteDateColumn({ type: 'timestamptz', nullable: true }) deletionTime: Date | null;
}
