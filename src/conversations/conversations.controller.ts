import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, CurrentWorkspace, type Principal } from '../auth/principal.js';
import { ParseIdPipe } from '../common/http/uuid-param.pipe.js';
import { mapPage, PagedResultOf, type PagedResult } from '../common/paging/paged-result.js';
import { ConversationViews } from './conversation-views.js';
import { ConversationsService } from './conversations.service.js';
import {
  AssignConversationDto,
  ConversationDto,
  ConversationStatusDto,
  CreateConversationDto,
  CreateConversationResultDto,
  ListConversationsQueryDto,
  TagConversationDto,
  TimelineQueryDto,
} from './dto/conversation.dto.js';
import { ConversationTimelineDto } from './dto/timeline.dto.js';

const ConversationId = () => Param('conversationId', new ParseIdPipe('Conversations:Conversation'));

@ApiTags('Conversations API')
@ApiBearerAuth()
@Controller('v2/conversations/service-account')
export class ConversationsController {
  constructor(
    private readonly conversations: ConversationsService,
    private readonly views: ConversationViews,
  ) {}

  @Get('channels/:channelId')
  @ApiOperation({
    summary: 'List Conversations',
    description:
      'The conversations of one channel, most recent activity first by default, with filters on status, assignees, contacts, tags, dates and unanswered ones (`IsLost`).',
  })
  @ApiOkResponse({ type: PagedResultOf(ConversationDto, 'PagedResultOfConversationDto') })
  async list(
    @CurrentWorkspace() workspaceId: string,
    @Param('channelId', new ParseIdPipe('Channels:Channel')) channelId: string,
    @Query() query: ListConversationsQueryDto,
  ): Promise<PagedResult<ConversationDto>> {
    return this.views.page(await this.conversations.list(workspaceId, channelId, query));
  }

  @Post('create')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Create Conversation',
    description: 'Returns the open conversation of that contact on that channel when there is one.',
  })
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateConversationDto): Promise<CreateConversationResultDto> {
    return CreateConversationResultDto.from(await this.views.one(await this.conversations.create(principal, body)));
  }

  @Get(':conversationId')
  @ApiOperation({ summary: 'Get Conversation', description: 'One conversation with its contact, channel, assignee, tags and last event.' })
  async get(@CurrentWorkspace() workspaceId: string, @ConversationId() id: string): Promise<ConversationDto> {
    return this.views.one(await this.conversations.get(workspaceId, id));
  }

  @Post(':conversationId/assign')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Assign Conversation',
    description: 'A user or an AI agent (userId of Get Workspace Users); both null unassigns.',
  })
  async assign(
    @CurrentPrincipal() principal: Principal,
    @ConversationId() id: string,
    @Body() body: AssignConversationDto,
  ): Promise<ConversationDto> {
    return this.views.one(await this.conversations.assign(principal, id, body));
  }

  @Post(':conversationId/status')
  @HttpCode(200)
  @ApiOperation({ summary: 'Set Conversation Status', description: 'Closes (2) or reopens (1) the conversation.' })
  async status(
    @CurrentWorkspace() workspaceId: string,
    @ConversationId() id: string,
    @Body() body: ConversationStatusDto,
  ): Promise<ConversationDto> {
    return this.views.one(await this.conversations.setStatus(workspaceId, id, body.status));
  }

  @Get(':conversationId/timeline')
  @ApiOperation({
    summary: 'Get Conversation Timeline',
    description: 'The events of a conversation (messages, calls, assignations), newest first by default.',
  })
  @ApiOkResponse({ type: PagedResultOf(ConversationTimelineDto, 'PagedResultOfConversationTimelineDto') })
  async timeline(
    @CurrentWorkspace() workspaceId: string,
    @ConversationId() id: string,
    @Query() query: TimelineQueryDto,
  ): Promise<PagedResult<ConversationTimelineDto>> {
    return mapPage(await this.conversations.timelinePage(workspaceId, id, query), ConversationTimelineDto.from);
  }

  @Post(':conversationId/tags')
  @HttpCode(200)
  @ApiTags('Tags API')
  @ApiOperation({ summary: 'Tag a conversation', description: 'Replaces the conversation’s tags with tagIds.' })
  async tag(
    @CurrentWorkspace() workspaceId: string,
    @ConversationId() id: string,
    @Body() body: TagConversationDto,
  ): Promise<ConversationDto> {
    return this.views.one(await this.conversations.replaceTags(workspaceId, id, body.tagIds));
  }

  @Put(':conversationId/tags/:tagId')
  @ApiTags('Tags API')
  @ApiOperation({ summary: 'Add Tag to Conversation', description: 'Adds one tag; idempotent.' })
  async addTag(
    @CurrentWorkspace() workspaceId: string,
    @ConversationId() id: string,
    @Param('tagId', new ParseIdPipe('Tags:Tag')) tagId: string,
  ): Promise<ConversationDto> {
    return this.views.one(await this.conversations.addTag(workspaceId, id, tagId));
  }

  @Delete(':conversationId/tags/:tagId')
  @ApiTags('Tags API')
  @ApiOperation({ summary: 'Remove Tag from Conversation', description: 'Removes one tag; idempotent.' })
  async removeTag(
    @CurrentWorkspace() workspaceId: string,
    @ConversationId() id: string,
    @Param('tagId', new ParseIdPipe('Tags:Tag')) tagId: string,
  ): Promise<ConversationDto> {
    return this.views.one(await this.conversations.removeTag(workspaceId, id, tagId));
  }
}
