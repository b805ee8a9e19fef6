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
  @ApiOperation({ summary: 'Create Workspace' })
  async createWorkspace(@Body() body: CreateWorkspaceDto): Promise<CreatedWorkspaceDto> {
    return CreatedWorkspaceDto.fromCreated(await this.workspaces.create(body.name));
  }

  @Get('workspaces')
  @ApiOperation({ summary: 'List Workspaces' })
  @ApiOkResponse({ type: PagedResultOf(WorkspaceDto) })
  async listWorkspaces(@Query() paging: PagedRequestDto): Promise<PagedResult<WorkspaceDto>> {
    return mapPage(await this.workspaces.list(paging), WorkspaceDto.from);
  }

  @Post('workspaces/:workspaceId/webhook-secret')
  @HttpCode(200)
  @NoStore()
  @ApiOperation({ summary: 'Rotate Webhook Secret' })
  async rotateWebhookSecret(@WorkspaceId() workspaceId: string): Promise<WebhookSecretDto> {
    return WebhookSecretDto.from(await this.workspaces.rotateWebhookSecret(workspaceId));
  }

  @Post('workspaces/:workspaceId/service-accounts')
  @HttpCode(200)
  @NoStore()
  @ApiOperation({ summary: 'Create Service Account' })
  async createServiceAccount(@WorkspaceId() workspaceId: string, @Body() body: CreateServiceAccountDto): Promise<CreatedServiceAccountDto> {
    return CreatedServiceAccountDto.from(await this.admin.createServiceAccount(workspaceId, body.name));
  }

  @Delete('workspaces/:workspaceId/service-accounts/:id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke Service Account' })
  async revokeServiceAccount(
    @WorkspaceId() workspaceId: string,
    @Param('id', new ParseIdPipe('ServiceAccounts:ServiceAccount')) id: string,
  ): Promise<void> {
    await this.serviceAccounts.revoke(workspaceId, id);
  }

  @Post('workspaces/:workspaceId/users')
  @HttpCode(200)
  @ApiOperation({ summary: 'Create Workspace User' })
  async createUser(@WorkspaceId() workspaceId: string, @Body() body: CreateWorkspaceUserDto): Promise<WorkspaceUserDto> {
    return WorkspaceUserDto.from(await this.workspaces.addUser(workspaceId, body));
  }

  @Post('workspaces/:workspaceId/channels')
  @HttpCode(200)
  @ApiOperation({ summary: 'Create Channel' })
  async createChannel(@WorkspaceId() workspaceId: string, @Body() body: ChannelConfigDto): Promise<ChannelDto> {
    return ChannelDto.from(await this.admin.createChannel(workspaceId, body));
  }

  @Put('workspaces/:workspaceId/channels/:channelId')
  @ApiOperation({ summary: 'Update Channel' })
  async updateChannel(
    @WorkspaceId() workspaceId: string,
    @Param('channelId', new ParseIdPipe('Channels:Channel')) channelId: string,
    @Body() body: ChannelConfigDto,
  ): Promise<ChannelDto> {
    return ChannelDto.from(await this.channels.update(workspaceId, channelId, body));
  }

  @Delete('workspaces/:workspaceId/channels/:channelId')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete Channel' })
  async deleteChannel(
    @WorkspaceId() workspaceId: string,
    @Param('channelId', new ParseIdPipe('Channels:Channel')) channelId: string,
  ): Promise<void> {
    await this.channels.remove(workspaceId, channelId);
  }
}
