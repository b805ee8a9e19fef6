import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentWorkspace } from '../auth/principal.js';
import { NoStore } from '../common/http/no-store.decorator.js';
import { ParseIdPipe } from '../common/http/uuid-param.pipe.js';
import { mapPage, PagedResultOf, type PagedResult } from '../common/paging/paged-result.js';
import { WebhookDeliveryDto } from './dto/webhook-delivery.dto.js';
import {
  CreatedWebhookEndpointDto,
  CreateWebhookEndpointDto,
  ListWebhookEndpointsDto,
  RecoveredDeliveriesDto,
  RecoverWebhookEndpointDto,
  TestWebhookEndpointDto,
  UpdateWebhookEndpointDto,
  WebhookEndpointDto,
  WebhookEndpointSecretDto,
} from './dto/webhook-endpoint.dto.js';
import { WebhookEndpointsService } from './webhook-endpoints.service.js';

const EndpointId = () => Param('id', new ParseIdPipe('Webhooks:Endpoint'));

@ApiTags('Webhooks')
@ApiBearerAuth()
@Controller('v1/webhook-endpoints')
export class WebhookEndpointsController {
  constructor(private readonly endpoints: WebhookEndpointsService) {}

  @Post()
  @HttpCode(200)
  @NoStore()
  @ApiOperation({
    summary: 'Create Webhook Endpoint',
    description: 'Registers a URL to receive events; the answer carries its signing secret.',
  })
  async create(@CurrentWorkspace() workspaceId: string, @Body() body: CreateWebhookEndpointDto): Promise<CreatedWebhookEndpointDto> {
    const { endpoint, secret } = await this.endpoints.create(workspaceId, body);
    return { ...WebhookEndpointDto.from(endpoint), secret };
  }

  @Get()
  @ApiOperation({
    summary: 'List Webhook Endpoints',
    description: 'The workspace’s endpoints, oldest first, with their filters, limits and whether they are disabled (and why).',
  })
  @ApiOkResponse({ type: PagedResultOf(WebhookEndpointDto) })
  async list(@CurrentWorkspace() workspaceId: string, @Query() query: ListWebhookEndpointsDto): Promise<PagedResult<WebhookEndpointDto>> {
    return mapPage(await this.endpoints.list(workspaceId, query), WebhookEndpointDto.from);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get Webhook Endpoint', description: 'One endpoint of the workspace; its secret is read separately.' })
  async get(@CurrentWorkspace() workspaceId: string, @EndpointId() id: string): Promise<WebhookEndpointDto> {
    return WebhookEndpointDto.from(await this.endpoints.get(workspaceId, id));
  }

  @Put(':id')
  @ApiOperation({ summary: 'Update Webhook Endpoint', description: 'Partial update: only the fields given change.' })
  async update(
    @CurrentWorkspace() workspaceId: string,
    @EndpointId() id: string,
    @Body() body: UpdateWebhookEndpointDto,
  ): Promise<WebhookEndpointDto> {
    return WebhookEndpointDto.from(await this.endpoints.update(workspaceId, id, body));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete Webhook Endpoint', description: 'Its pending deliveries are cancelled; its delivery log is kept.' })
  async remove(@CurrentWorkspace() workspaceId: string, @EndpointId() id: string): Promise<void> {
    await this.endpoints.remove(workspaceId, id);
  }

  @Get(':id/secret')
  @NoStore()
  @ApiOperation({
    summary: 'Get Webhook Endpoint Secret',
    description: 'The `whsec_` secret that signs the endpoint’s deliveries (Standard Webhooks), to verify them with.',
  })
  async secret(@CurrentWorkspace() workspaceId: string, @EndpointId() id: string): Promise<WebhookEndpointSecretDto> {
    return { secret: await this.endpoints.secret(workspaceId, id) };
  }

  @Post(':id/secret/rotate')
  @HttpCode(200)
  @NoStore()
  @ApiOperation({
    summary: 'Rotate Webhook Endpoint Secret',
    description: 'Issues a new secret; the old one keeps signing beside it for 24 h (both signatures in webhook-signature).',
  })
  async rotate(@CurrentWorkspace() workspaceId: string, @EndpointId() id: string): Promise<WebhookEndpointSecretDto> {
    return { secret: await this.endpoints.rotateSecret(workspaceId, id) };
  }

  @Post(':id/test')
  @HttpCode(200)
  @ApiOperation({ summary: 'Send Test Webhook Event', description: 'Sends a sample event of any catalog type to the endpoint now.' })
  async test(
    @CurrentWorkspace() workspaceId: string,
    @EndpointId() id: string,
    @Body() body: TestWebhookEndpointDto,
  ): Promise<WebhookDeliveryDto> {
    return WebhookDeliveryDto.from(await this.endpoints.sendTest(workspaceId, id, body.eventType));
  }

  @Post(':id/recover')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Recover Webhook Endpoint',
    description: 'Sends again every delivery to the endpoint created since `since` that ended Failed.',
  })
  async recover(
    @CurrentWorkspace() workspaceId: string,
    @EndpointId() id: string,
    @Body() body: RecoverWebhookEndpointDto,
  ): Promise<RecoveredDeliveriesDto> {
    return { count: await this.endpoints.recover(workspaceId, id, body.since) };
  }
}
