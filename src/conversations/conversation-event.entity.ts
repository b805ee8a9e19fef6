import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Conversation, EventDirection, EventSourceType } from './conversation.entity.js';
import type { StoredEditedVersion, MessageSource, ReferralInfo, ReferredProductInfo, ReplyInfo } from './message-details.js';
import type { MessagePricing } from './message-events.js';

export interface AssignationInfo {
  assignedUserId: string | null;
  assignedUserName: string | null;
  assignedAiAgentId: string | null;
  assignedAiAgentName: string | null;
  assignedByUserId: string | null;
  assignedByUserName: string | null;
}

export interface LocationInfo {
  latitude: number;
  longitude: number;
  name: string | null;
  address: string | null;
}

/** One entry of a conversation's timeline: a message, a call or an assignment. */
@Entity('conversation_events')
@Index(['workspaceId', 'conversationId', 'creationTime'])
@Index(['workspaceId', 'sourceType', 'sourceId'])
@Index(['workspaceId', 'contactId', 'channelId', 'creationTime'])
export class ConversationEvent {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid') workspaceId: string;
  @Column('uuid') conversationId: string;
  @ManyToOne(() => Conversation, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'conversation_id' })
  conversation?: Conversation;
  @Column('uuid') contactId: string;
  @Column('uuid') channelId: string;
  @Column({ type: 'smallint' }) sourceType: EventSourceType;
  /** The message or call this event stands for (provider message id, call record id). */
  @Column({ type: 'varchar', length: 200, nullable: true }) sourceId: string | null;
  @Column({ type: 'smallint' }) direction: EventDirection;
  @Column({ type: 'timestamptz' }) creationTime: Date;
  @Column({ type: 'varchar', length: 30, nullable: true }) status: string | null;
  @Column({ type: 'varchar', length: 100, nullable: true }) errorCode: string | null;
  @Column({ type: 'varchar', length: 1000, nullable: true }) failureReason: string | null;
  @Column({ type: 'boolean', default: false }) isAi: boolean;
  @Column({ type: 'jsonb', nullable: true }) attachment: Record<string, unknown> | null;
  @Column({ type: 'uuid', nullable: true }) ownerUserId: string | null;
  @Column({ type: 'uuid', nullable: true }) aiAgentId: string | null;
  /** `hh:mm:ss` for calls, a size for media. */
  @Column({ type: 'varchar', length: 30, nullable: true }) durationOrSize: string | null;
  @Column({ type: 'varchar', length: 30, nullable: true }) ringingDuration: string | null;
  @Column({ type: 'text', nullable: true }) body: string | null;
  @Column({ type: 'varchar', length: 200, nullable: true }) handlerName: string | null;
  @Column({ type: 'jsonb', nullable: true }) aiSummary: { summary: string | null; transcription: string | null } | null;
  @Column({ type: 'jsonb', nullable: true }) replyTo: ReplyInfo | null;
  @Column({ type: 'jsonb', nullable: true }) internalThread: { id: string; isResolved: boolean; messageCount: number } | null;
  @Column({ type: 'jsonb', nullable: true }) location: LocationInfo | null;
  @Column({ type: 'jsonb', nullable: true }) assignation: AssignationInfo | null;
  /**
   * WhatsApp outbound: the delivery statuses reported for the message, as bits (Sent 1, Delivered 2,
   * Read 4, Failed 8), so that a status Meta reports late goes out once; null for events recorded
   * before they were kept.
   */
  @Column({ type: 'smallint', nullable: true, default: 0 }) reportedStatuses: number | null;
  /** WhatsApp outbound: whether the provider charges for the message, as its status notifications say (null until one does). */
  @Column({ type: 'boolean', nullable: true }) isBillable: boolean | null;
  /** WhatsApp outbound: what Meta's first status carrying `pricing` said the message costs (null until one does; kept once set). */
  @Column({ type: 'jsonb', nullable: true }) pricing: MessagePricing | null;
  /** WhatsApp: the ad or post the message came from (API.md §14). */
  @Column({ type: 'jsonb', nullable: true }) referral: ReferralInfo | null;
  @Column({ type: 'jsonb', nullable: true }) referredProduct: ReferredProductInfo | null;
  @Column({ type: 'boolean', nullable: true }) forwarded: boolean | null;
  @Column({ type: 'boolean', nullable: true }) frequentlyForwarded: boolean | null;
  /** The bodies an edited message had before, oldest first. */
  @Column({ type: 'jsonb', nullable: true }) editHistory: StoredEditedVersion[] | null;
  /** When the sender deleted the message (its body and file are gone). */
  @Column({ type: 'timestamptz', nullable: true }) revokedAt: Date | null;
  /** Outbound WhatsApp: `BusinessApp` for a message the business sent from the WhatsApp Business app (null: this API). */
  @Column({ type: 'varchar', length: 20, nullable: true }) source: MessageSource | null;
}
