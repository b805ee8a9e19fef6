import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentWorkspace } from '../auth/principal.js';
import { ParseIdPipe } from '../common/http/uuid-param.pipe.js';
import { Idempotent } from '../common/idempotency/idempotent.decorator.js';
import { mapPage, PagedResultOf, type PagedResult } from '../common/paging/paged-result.js';
import {
  ListOutboundIvrFlowsQueryDto,
  OutboundIvrFlow,
  OutboundIvrHangupStepProps,
  OutboundIvrPlayStepProps,
  OutboundIvrQuestionStepProps,
  SaveOutboundIvrFlow,
} from './dto/outbound-ivr-flow.dto.js';
import { OutboundIvrFlowsService } from './outbound-ivr-flows.service.js';

const FlowId = () => Param('id', new ParseIdPipe('OutboundIvr:Flow'));

@ApiTags('Outbound IVR Flows')
@ApiBearerAuth()
@ApiExtraModels(OutboundIvrPlayStepProps, OutboundIvrQuestionStepProps, OutboundIvrHangupStepProps)
@Controller('v1/outbound-ivr-flows')
export class OutboundIvrFlowsController {
  constructor(private readonly flows: OutboundIvrFlowsService) {}

  @Post()
  @HttpCode(200)
  @Idempotent()
  @ApiOperation({ summary: 'Create Outbound IVR Flow', description: 'Validated as a graph; starts at version 1.' })
  @ApiBody({ type: SaveOutboundIvrFlow })
  async create(@CurrentWorkspace() workspaceId: string, @Body() body: SaveOutboundIvrFlow): Promise<OutboundIvrFlow> {
    return OutboundIvrFlow.from(await this.flows.create(workspaceId, body));
  }

  @Get()
  @ApiOperation({
    summary: 'List Outbound IVR Flows',
    description: 'Newest first unless `Sorting` says otherwise (Name, CreationTime, LastModificationTime).',
  })
  @ApiOkResponse({ type: PagedResultOf(OutboundIvrFlow, 'PagedResultOfOutboundIvrFlow') })
  async list(@CurrentWorkspace() workspaceId: string, @Query() query: ListOutboundIvrFlowsQueryDto): Promise<PagedResult<OutboundIvrFlow>> {
    return mapPage(await this.flows.list(workspaceId, query), OutboundIvrFlow.from);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get Outbound IVR Flow', description: 'The current version.' })
  async get(@CurrentWorkspace() workspaceId: string, @FlowId() id: string): Promise<OutboundIvrFlow> {
    return OutboundIvrFlow.from(await this.flows.get(workspaceId, id));
  }

  @Put(':id')
  @ApiOperation({
    summary: 'Update Outbound IVR Flow',
    description: 'Replaces the flow as its next version; calls already running keep the version they started with.',
  })
  @ApiBody({ type: SaveOutboundIvrFlow })
  async update(@CurrentWorkspace() workspaceId: string, @FlowId() id: string, @Body() body: SaveOutboundIvrFlow): Promise<OutboundIvrFlow> {
    return OutboundIvrFlow.from(await this.flows.update(workspaceId, id, body));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete Outbound IVR Flow', description: 'Calls already running the flow finish it.' })
  async remove(@CurrentWorkspace() workspaceId: string, @FlowId() id: string): Promise<void> {
    await this.flows.remove(workspaceId, id);
  }
}
