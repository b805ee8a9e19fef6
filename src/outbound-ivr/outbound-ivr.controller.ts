import { CallTranscriptDto } from '../call-intelligence/dto/call-analysis.dto.js';
import { toCallTranscript } from './dto/call-transcript.js';
import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiCallbacks, ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, CurrentWorkspace, type Principal } from '../auth/principal.js';
import { ParseIdPipe } from '../common/http/uuid-param.pipe.js';
import { Idempotent } from '../common/idempotency/idempotent.decorator.js';
import { mapPage, PagedResultOf, type PagedResult } from '../common/paging/paged-result.js';
import { RateLimitPolicy } from '../rate-limiting/rate-limit-policy.js';
import { RateLimit } from '../rate-limiting/rate-limit.decorator.js';
import { CreateOutboundIvrRequest } from './dto/create-outbound-ivr.dto.js';
import {
  ListOutboundIvrQueryDto,
  OutboundIvrRequest,
  OutboundIvrWebhookPayload,
  toOutboundIvrRequest,
} from './dto/outbound-ivr-request.dto.js';
import { OutboundIvrService } from './outbound-ivr.service.js';

const RequestId = new ParseIdPipe('OutboundIvr:Request');

@ApiTags('Outbound IVR')
// The body of the `outbound_ivr.completed` webhook, documented beside the operations that cause it.
@ApiExtraModels(OutboundIvrWebhookPayload)
@ApiBearerAuth()
@Controller('v1/outbound-ivr')
export class OutboundIvrController {
  constructor(private readonly ivr: OutboundIvrService) {}

  @Post()
  @HttpCode(200)
  @Idempotent()
  @RateLimit(RateLimitPolicy.IvrCalls)
  @ApiOperation({
    summary: 'Create Outbound IVR',
    description:
      'Requests an outbound call. When the call terminates, the outcome (OutboundIvrWebhookPayload) is sent to webhookUrl. ' +
      'A second request with the same externalId returns the first record and places no new call.',
  })
  @ApiBody({ type: CreateOutboundIvrRequest })
  @ApiCallbacks({
    name: 'outboundIvrCompleted',
    callbackUrl: '{$request.body#/webhookUrl}',
    method: 'post',
    requestBody: { type: OutboundIvrWebhookPayload },
    expectedResponse: { status: 200, description: 'Any 2xx within 10 s; otherwise the event is retried (Standard Webhooks headers).' },
  })
  @ApiOkResponse({ type: OutboundIvrRequest })
  async create(@CurrentPrincipal() principal: Principal, @Body() body: CreateOutboundIvrRequest): Promise<OutboundIvrRequest> {
    return toOutboundIvrRequest(await this.ivr.create(principal, body));
  }

  @Get()
  @ApiOperation({ summary: 'List Outbound IVR Requests', description: 'Newest first; filter by Status and ExternalId.' })
  @ApiOkResponse({ type: PagedResultOf(OutboundIvrRequest, 'PagedResultOfOutboundIvrRequest') })
  async list(@CurrentWorkspace() workspaceId: string, @Query() query: ListOutboundIvrQueryDto): Promise<PagedResult<OutboundIvrRequest>> {
    return mapPage(await this.ivr.list(workspaceId, query), toOutboundIvrRequest);
  }

  @Get(':id')
  @ApiOperation({
    summary: 'Get Outbound IVR Request',
    description: "The call's record: status, result, the pressed digit, timestamps as the call progressed, and the answers of a flow.",
  })
  @ApiOkResponse({ type: OutboundIvrRequest })
  async get(@CurrentWorkspace() workspaceId: string, @Param('id', RequestId) id: string): Promise<OutboundIvrRequest> {
    return toOutboundIvrRequest(await this.ivr.get(workspaceId, id));
  }

  @Get(':id/transcript')
  @ApiOperation({
    summary: 'Get Outbound IVR Transcript',
    description:
      "A recorded call's transcript (segments with speaker Business or Customer and offsets in seconds), summary, sentiment and evaluation criteria (API.md §16), " +
      "as the workspace's call intelligence providers gave them once the recording was stored. `status` says where the analysis stands: NotRequested (no recording, or no transcription provider), Pending, Completed or Failed (analysisError).",
  })
  @ApiOkResponse({ type: CallTranscriptDto })
  async transcript(@CurrentWorkspace() workspaceId: string, @Param('id', RequestId) id: string): Promise<CallTranscriptDto> {
    return toCallTranscript(await this.ivr.get(workspaceId, id));
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel Outbound IVR Request', description: 'Cancels a call not yet finished (409 once it has).' })
  @ApiOkResponse({ type: OutboundIvrRequest })
  async cancel(@CurrentWorkspace() workspaceId: string, @Param('id', RequestId) id: string): Promise<OutboundIvrRequest> {
    return toOutboundIvrRequest(await this.ivr.cancel(workspaceId, id));
  }
}
