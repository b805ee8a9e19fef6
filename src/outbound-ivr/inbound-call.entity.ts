import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { CallWebhookStatus } from './ivr-enums.js';

/** A call someone placed to one of our numbers (answered with the greeting, then hung up). */
@Entity('inbound_calls')
@Index(['workspaceId', 'creationTime'])
@Index('ux_inbound_calls_provider_call_id', ['workspaceId', 'providerCallId'], { unique: true })
export class InboundCall {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid') workspaceId: string;
  @Column('uuid') channelId: string;
  @Column({ type: 'varchar', length: 100 }) providerCallId: string;
  @Column({ type: 'varchar', length: 32 }) callerNumber: string;
  @Column({ type: 'smallint' }) status: CallWebhookStatus;
  @Column({ type: 'int' }) durationSeconds: number;
  @Column({ type: 'timestamptz', nullable: true }) pickupTime: Date | null;
  @Column({ type: 'timestamptz' }) hangupTime: Date;
  @Column({ type: 'timestamptz' }) creationTime: Date;
}
