import { Controller, Get, Header, Param, Query } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Public } from '../../auth/public.decorator.js';
import { ParseIdPipe } from '../../common/http/uuid-param.pipe.js';
import { WhatsAppWebhooksService } from './whatsapp-webhooks.service.js';

/**
 * Meta's side of a cloud-api channel: the subscription handshake, checked against the channel's
 * verify token. The notifications (`POST` on the same path) are answered by Fastify directly
 * (whatsapp-webhook-route.ts).
 */
@ApiExcludeController()
@Public()
@Controller('v1/whatsapp/webhooks')
export class WhatsAppWebhooksController {
  constructor(private readonly webhooks: WhatsAppWebhooksService) {}

  @Get(':channelId')
  @Header('Content-Type', 'text/plain')
  handshake(
    @Param('channelId', new ParseIdPipe('Channels:Channel')) channelId: string,
    @Query() query: Record<string, string>,
  ): Promise<string> {
    return this.webhooks.verifySubscription(channelId, query);
  }
}
