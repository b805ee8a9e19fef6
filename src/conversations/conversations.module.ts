import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WorkspacesModule } from '../workspaces/workspaces.module.js';
import { ConversationEvent } from './conversation-event.entity.js';
import { ConversationEventsRepository } from './conversation-events.repository.js';
import { ConversationTag } from './conversation-tag.entity.js';
import { ConversationTagsRepository } from './conversation-tags.repository.js';
import { Conversation } from './conversation.entity.js';
import { ConversationsRepository } from './conversations.repository.js';
import { ChannelsModule } from '../channels/channels.module.js';
import { ContactsModule } from '../contacts/contacts.module.js';
import { TagsModule } from '../tags/tags.module.js';
import { WebhooksModule } from '../webhooks/webhooks.module.js';
import { ConversationViews } from './conversation-views.js';
import { ConversationsController } from './conversations.controller.js';
import { ConversationsService } from './conversations.service.js';
import { MessageEvents } from './message-events.service.js';
import { TimelineService } from './timeline.service.js';

@Module({
  imports: [
    TypeOrmModule.forFeature([Conversation, ConversationEvent, ConversationTag]),
    ChannelsModule,
    ContactsModule,
    TagsModule,
    WorkspacesModule,
    WebhooksModule,
  ],
  controllers: [ConversationsController],
  providers: [
    MessageEvents,
    ConversationsService,
    ConversationViews,
    TimelineService,
    ConversationsRepository,
    ConversationEventsRepository,
    ConversationTagsRepository,
  ],
  exports: [ConversationsService, TimelineService, MessageEvents],
})
export class ConversationsModule {}
