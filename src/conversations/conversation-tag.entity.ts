import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Tag } from '../tags/tag.entity.js';
import { Conversation } from './conversation.entity.js';

/** A tag on a conversation. The tag's foreign key restricts deletes: a tag in use cannot go. */
@Entity('conversation_tags')
@Index(['workspaceId', 'tagId'])
export class ConversationTag {
  @PrimaryColumn('uuid') conversationId: string;
  @PrimaryColumn('uuid') tagId: string;
  @Column('uuid') workspaceId: string;
  @ManyToOne(() => Conversation, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'conversation_id' })
  conversation?: Conversation;
  @ManyToOne(() => Tag, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'tag_id' })
  tag?: Tag;
}
