import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Contact } from '../contacts/contact.entity.js';
import { ConversationStatus, EventSourceType, EventDirection } from './conversation-enums.js';
import type { ReferralInfo } from './message-details.js';

export { ConversationStatus, EventSourceType, EventDirection };

/** One conversation per contact and channel while open (a partial unique index), then a new one. */
@Entity('conversations')
@Index('ux_conversations_open', ['workspaceId', 'channelId', 'contactId'], { unique: true, where: 'status = 1' })
@Index(['workspaceId', 'channelId', 'lastActivityAt'])
@Index(['workspaceId', 'channelId', 'assigneeUserId', 'lastActivityAt'])
@Index(['workspaceId', 'contactId'])
// An expression index (the referral's source id), made by its migration; TypeORM cannot describe it.
@Index('IDX_conversations_referral_source', { synchronize: false })
export class Conversation {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid') workspaceId: string;
  @Column('uuid') channelId: string;
  @Column('uuid') contactId: string;
  @ManyToOne(() => Contact, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'contact_id' })
  contact?: Contact;
  @Column({ type: 'smallint', default: ConversationStatus.Open }) status: ConversationStatus;
  /** The `userId` of a workspace user (not an AI agent). */
  @Column({ type: 'uuid', nullable: true }) assigneeUserId: string | null;
  /** The `userId` of a workspace user marked `isAiAgent`. */
  @Column({ type: 'uuid', nullable: true }) assignedAiAgentId: string | null;
  @Column({ type: 'varchar', length: 20, nullable: true }) sentiment: string | null;
  @Column({ type: 'timestamptz' }) lastActivityAt: Date;
  @Column({ type: 'smallint', nullable: true }) lastEventSourceType: EventSourceType | null;
  @Column({ type: 'smallint', nullable: true }) lastEventDirection: EventDirection | null;
  @Column({ type: 'varchar', length: 30, nullable: true }) lastEventStatus: string | null;
  @Column({ type: 'varchar', length: 200, nullable: true }) lastEventPreviewBody: string | null;
  @Column({ type: 'timestamptz', nullable: true }) lastEventOccurredAt: Date | null;
  @Column({ type: 'int', default: 0 }) lastEventsCount: number;
  /** The first ad or post referral of the conversation's inbound messages (API.md §14). */
  @Column({ type: 'jsonb', nullable: true }) referral: ReferralInfo | null;
  @CreateDateColumn({ type: 'timestamptz' }) creationTime: Date;
}
