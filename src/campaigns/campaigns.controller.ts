import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiConflictResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, CurrentWorkspace, type Principal } from '../auth/principal.js';
import { ParseIdPipe } from '../common/http/uuid-param.pipe.js';
import { PagedResultOf, type PagedResult } from '../common/paging/paged-result.js';
import type { Campaign } from './campaign.entity.js';
import { CampaignsService } from './campaigns.service.js';
import {
  CampaignDto,
  CampaignRecipientDto,
  CreateCampaignDto,
  ListCampaignRecipientsQueryDto,
  ListCampaignsQueryDto,
} from './dto/campaign.dto.js';

const CampaignId = () => Param('id', new ParseIdPipe('Campaigns:Campaign'));
const ILLEGAL = { description: "The campaign's status does not allow this (code `Campaigns:IllegalTransition`)." };

@ApiTags('Campaigns')
@ApiBearerAuth()
@Controller('v1/campaigns')
export class CampaignsController {
  constructor(private readonly campaigns: CampaignsService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Create Campaign',
    description:
      'A template broadcast or a call list, as Draft. The channel, the approved template and its parameters are checked as Send Template checks them; the audience is exactly one of `contactIds`, `tagIds`, `search`, and is fixed at start.',
  })
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateCampaignDto): Promise<CampaignDto> {
    return this.dto(principal.workspaceId, await this.campaigns.create(principal, body));
  }

  @Get()
  @ApiOperation({ summary: 'List Campaigns', description: "A page of the workspace's campaigns, newest first, with their counts." })
  @ApiOkResponse({ type: PagedResultOf(CampaignDto, 'PagedResultOfCampaignDto') })
  async list(@CurrentWorkspace() workspaceId: string, @Query() query: ListCampaignsQueryDto): Promise<PagedResult<CampaignDto>> {
    const page = await this.campaigns.list(workspaceId, query.status, query);
    const ids = page.items.map((c) => c.id);
    const [counts, usage] = await Promise.all([this.campaigns.counts(workspaceId, ids), this.campaigns.usage(workspaceId, ids)]);
    return { totalCount: page.totalCount, items: page.items.map((c) => CampaignDto.from(c, counts.get(c.id), usage.get(c.id))) };
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get Campaign', description: 'The campaign, with its recipients counted by status.' })
  async get(@CurrentWorkspace() workspaceId: string, @CampaignId() id: string): Promise<CampaignDto> {
    return this.dto(workspaceId, await this.campaigns.get(workspaceId, id));
  }

  @Post(':id/start')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Start Campaign',
    description: 'Draft → Running (or Scheduled when `scheduledAt` is ahead). The audience is snapshotted now.',
  })
  @ApiConflictResponse(ILLEGAL)
  async start(@CurrentWorkspace() workspaceId: string, @CampaignId() id: string): Promise<CampaignDto> {
    return this.dto(workspaceId, await this.campaigns.start(workspaceId, id));
  }

  @Post(':id/pause')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Pause Campaign',
    description:
      'Running (or Scheduled) → Paused: no new message leaves once this answers (a call list stops after the calls of its current batch).',
  })
  @ApiConflictResponse(ILLEGAL)
  async pause(@CurrentWorkspace() workspaceId: string, @CampaignId() id: string): Promise<CampaignDto> {
    return this.dto(workspaceId, await this.campaigns.pause(workspaceId, id));
  }

  @Post(':id/resume')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Resume Campaign',
    description: 'Paused → Running, from where it stopped (Scheduled again when it was paused before its `scheduledAt`, still ahead).',
  })
  @ApiConflictResponse(ILLEGAL)
  async resume(@CurrentWorkspace() workspaceId: string, @CampaignId() id: string): Promise<CampaignDto> {
    return this.dto(workspaceId, await this.campaigns.resume(workspaceId, id));
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Cancel Campaign',
    description: 'Draft, Scheduled, Running or Paused → Cancelled. What was sent stays sent; recipients still Pending become Cancelled.',
  })
  @ApiConflictResponse(ILLEGAL)
  async cancel(@CurrentWorkspace() workspaceId: string, @CampaignId() id: string): Promise<CampaignDto> {
    return this.dto(workspaceId, await this.campaigns.cancel(workspaceId, id));
  }

  @Get(':id/recipients')
  @ApiOperation({
    summary: 'List Campaign Recipients',
    description: 'A page of the recipients (by contact id) with their status, optionally only those of `Status`.',
  })
  @ApiOkResponse({ type: PagedResultOf(CampaignRecipientDto, 'PagedResultOfCampaignRecipientDto') })
  recipients(
    @CurrentWorkspace() workspaceId: string,
    @CampaignId() id: string,
    @Query() query: ListCampaignRecipientsQueryDto,
  ): Promise<PagedResult<CampaignRecipientDto>> {
    return this.campaigns.recipientsPage(workspaceId, id, query.status, query);
  }

  private async dto(workspaceId: string, campaign: Campaign): Promise<CampaignDto> {
    const [counts, usage] = await Promise.all([
      this.campaigns.counts(workspaceId, [campaign.id]),
      this.campaigns.usage(workspaceId, [campaign.id]),
    ]);
    return CampaignDto.from(campaign, counts.get(campaign.id), usage.get(campaign.id));
  }
}
