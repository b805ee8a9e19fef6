import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { WebhookEventTypeDto } from './dto/webhook-event-type.dto.js';
import { WebhookEndpointsService } from './webhook-endpoints.service.js';

@ApiTags('Webhooks')
@ApiBearerAuth()
@Controller('v1/webhook-event-types')
export class WebhookEventTypesController {
  constructor(private readonly endpoints: WebhookEndpointsService) {}

  @Get()
  @ApiOperation({
    summary: 'List Webhook Event Types',
    description: 'Every event type an endpoint can take, with the JSON Schema of its payload.',
  })
  @ApiOkResponse({ type: [WebhookEventTypeDto] })
  list(): WebhookEventTypeDto[] {
    return this.endpoints.eventTypes();
  }
}
