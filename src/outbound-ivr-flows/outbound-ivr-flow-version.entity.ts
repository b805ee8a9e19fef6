import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import type { FlowDefinition } from './flow-definition.js';
import { OutboundIvrFlowHead } from './outbound-ivr-flow-head.entity.js';

/** One version of a flow's definition, written once and never changed. */
@Entity('outbound_ivr_flow_versions')
export class OutboundIvrFlowVersion {
  @PrimaryColumn('uuid') workspaceId: string;
  @PrimaryColumn('uuid') flowId: string;
  @ManyToOne(() => OutboundIvrFlowHead, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'flow_id' })
  flow?: OutboundIvrFlowHead;
  @PrimaryColumn('int') version: number;
  @Column('jsonb') definition: FlowDefinition;
  @CreateDateColumn({ type: 'timestamptz' }) creationTime: Date;
}
