import { Module } from '@nestjs/common';
import { ChannelsModule } from '../channels/channels.module.js';
import { ContactsModule } from '../contacts/contacts.module.js';
import { TagsModule } from '../tags/tags.module.js';
import { ConversationViews } from './conversation-views.js';
import { ConversationsController } from './conversations.controller.js';
import { ConversationsService } from './conversations.service.js';
import { TimelineService } from './timeline.service.js';

@Module({
  imports: [ChannelsModule, ContactsModule, TagsModule],
  controllers: [ConversationsController],
  providers: [ConversationsService, ConversationViews, TimelineService],
  exports: [ConversationsService, TimelineService],
})
export class ConversationsModule {}
