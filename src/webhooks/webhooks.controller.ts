import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentWorkspace } from '../auth/principal.js';
import { ParseIdPipe } from '../common/http/uuid-param.pipe.js';
import { mapPage, PagedResultOf, type PagedResult } from '../common/paging/paged-result.js';
import { ListWebhookDeliveriesDto, WebhookDeliveryDto } from './dto/webhook-delivery.dto.js';
import { WebhookDeliveryService } from './webhook-delivery.service.js';

@ApiTags('Webhooks')
@ApiBearerAuth()
@Controller('v1/webhook-deliveries')
export class WebhooksController {
  constructor(private readonly deliveries: WebhookDeliveryService) {}

  @Get()
  @ApiOperation({ summary: 'List Webhook Deliveries', description: 'The delivery log of outgoing webhooks, newest first.' })
  @ApiOkResponse({ type: PagedResultOf(WebhookDeliveryDto) })
  async list(@CurrentWorkspace() workspaceId: string, @Query() query: ListWebhookDeliveriesDto): Promise<PagedResult<WebhookDeliveryDto>> {
    return mapPage(await this.deliveries.list(workspaceId, query), WebhookDeliveryDto.from);
  }

  @Post(':id/redeliver')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Redeliver Webhook',
    description: 'Sends a succeeded or failed event again, with the same webhook-id and a fresh retry schedule.',
  })
  async redeliver(
    @CurrentWorkspace() workspaceId: string,
    @Param('id', new ParseIdPipe('Webhooks:Delivery')) id: string,
  ): Promise<WebhookDeliveryDto> {
    return WebhookDeliveryDto.from(await this.deliveries.redeliver(workspaceId, id));
  }
}
