import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth/public.decorator.js';
import { ServiceAccountsService } from '../auth/service-accounts.service.js';
import { ChannelsService } from '../channels/channels.service.js';
import { ChannelConfigDto } from '../channels/dto/channel-config.dto.js';
import { ChannelDto } from '../channels/dto/channel.dto.js';
import { NoStore } from '../common/http/no-store.decorator.js';
import { ParseIdPipe } from '../common/http/uuid-param.pipe.js';
import { PagedRequestDto } from '../common/paging/paged-request.dto.js';
import { mapPage, PagedResultOf, type PagedResult } from '../common/paging/paged-result.js';
import { CreatedWorkspaceDto, CreateWorkspaceDto, WebhookSecretDto, WorkspaceDto } from '../workspaces/dto/workspace.dto.js';
import { CreateWorkspaceUserDto, WorkspaceUserDto } from '../workspaces/dto/workspace-user.dto.js';
import { WorkspacesService } from '../workspaces/workspaces.service.js';
import { AdminKeyGuard } from './admin-key.guard.js';
import { AdminService } from './admin.service.js';
import { CreatedServiceAccountDto, CreateServiceAccountDto } from './dto/admin.dto.js';

const WorkspaceId = () => Param('workspaceId', new ParseIdPipe('Workspaces:Workspace'));

/** The operator's API (API.md §3). */
@ApiTags('Admin')
@ApiBearerAuth('admin-key')
@Public()
@UseGuards(AdminKeyGuard)
@Controller('admin/v1')
export class AdminController {
  constructor(
    private readonly workspaces: WorkspacesService,
    private readonly serviceAccounts: ServiceAccountsService,
    private readonly channels: ChannelsService,
    private readonly admin: AdminService,
  ) {}

  @Post('workspaces')
  @HttpCode(200)
  @NoStore()
  @ApiOperation({
    summary: 'Create Workspace',
    description: 'Creates a workspace and answers its `whsec_` webhook signing secret (shown here only).',
  })
  async createWorkspace(@Body() body: CreateWorkspaceDto): Promise<CreatedWorkspaceDto> {
    return CreatedWorkspaceDto.fromCreated(await this.workspaces.create(body.name));
  }

  @Get('workspaces')
  @ApiOperation({ summary: 'List Workspaces', description: 'Every workspace, newest first, without secrets.' })
  @ApiOkResponse({ type: PagedResultOf(WorkspaceDto) })
  async listWorkspaces(@Query() paging: PagedRequestDto): Promise<PagedResult<WorkspaceDto>> {
    return mapPage(await this.workspaces.list(paging), WorkspaceDto.from);
  }

  @Post('workspaces/:workspaceId/webhook-secret')
  @HttpCode(200)
  @NoStore()
  @ApiOperation({
    summary: 'Rotate Webhook Secret',
    description: 'Issues a new webhook signing secret; the old one keeps signing beside it for 24 h.',
  })
  async rotateWebhookSecret(@WorkspaceId() workspaceId: string): Promise<WebhookSecretDto> {
    return WebhookSecretDto.from(await this.workspaces.rotateWebhookSecret(workspaceId));
  }

  @Post('workspaces/:workspaceId/service-accounts')
  @HttpCode(200)
  @NoStore()
  @ApiOperation({
    summary: 'Create Service Account',
    description: 'Creates a service account (client credentials for Service Login); the client secret is shown here only.',
  })
  async createServiceAccount(@WorkspaceId() workspaceId: string, @Body() body: CreateServiceAccountDto): Promise<CreatedServiceAccountDto> {
    return CreatedServiceAccountDto.from(await this.admin.createServiceAccount(workspaceId, body.name));
  }

  @Delete('workspaces/:workspaceId/service-accounts/:id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Revoke Service Account',
    description: 'Revokes a service account: its client secret stops working at once and its tokens within 60 s.',
  })
  async revokeServiceAccount(
    @WorkspaceId() workspaceId: string,
    @Param('id', new ParseIdPipe('ServiceAccounts:ServiceAccount')) id: string,
  ): Promise<void> {
    await this.serviceAccounts.revoke(workspaceId, id);
  }

  @Post('workspaces/:workspaceId/users')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Create Workspace User',
    description: 'Adds a user (or an AI agent, `isAiAgent`) to a workspace; users are the assignees of conversations.',
  })
  async createUser(@WorkspaceId() workspaceId: string, @Body() body: CreateWorkspaceUserDto): Promise<WorkspaceUserDto> {
    return WorkspaceUserDto.from(await this.workspaces.addUser(workspaceId, body));
  }

  @Post('workspaces/:workspaceId/channels')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Create Channel',
    description:
      'Creates a channel from a ChannelConfig: WhatsApp (sandbox or Cloud API), voice (sandbox or Twilio), or both. Credentials are write-only.',
  })
  async createChannel(@WorkspaceId() workspaceId: string, @Body() body: ChannelConfigDto): Promise<ChannelDto> {
    return ChannelDto.from(await this.admin.createChannel(workspaceId, body));
  }

  @Put('workspaces/:workspaceId/channels/:channelId')
  @ApiOperation({
    summary: 'Update Channel',
    description:
      "Replaces the channel's whole configuration (fields left out are cleared; to change only some fields use Update Channel (Partial) on `/v1/channels/{channelId}`).",
  })
  async updateChannel(
    @WorkspaceId() workspaceId: string,
    @Param('channelId', new ParseIdPipe('Channels:Channel')) channelId: string,
    @Body() body: ChannelConfigDto,
  ): Promise<ChannelDto> {
    return ChannelDto.from(await this.channels.update(workspaceId, channelId, body));
  }

  @Delete('workspaces/:workspaceId/channels/:channelId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete Channel', description: 'Deletes a channel.' })
  async deleteChannel(
    @WorkspaceId() workspaceId: string,
    @Param('channelId', new ParseIdPipe('Channels:Channel')) channelId: string,
  ): Promise<void> {
    await this.channels.remove(workspaceId, channelId);
  }
}
