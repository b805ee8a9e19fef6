import { Controller, Get, Header, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import type { RawBodyRequest } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Public } from '../auth/public.decorator.js';
import { ParseIdPipe } from '../common/http/uuid-param.pipe.js';
import { WhatsAppWebhooksService } from './whatsapp-webhooks.service.js';

const ChannelId = () => Param('channelId', new ParseIdPipe('Channels:Channel'));

/**
 * Meta's side of a cloud-api channel: the subscription handshake and the webhook notifications,
 * checked against the channel's verify token and app secret, queued for the worker and answered at once.
 */
@ApiExcludeController()
@Public()
@Controller('v1/whatsapp/webhooks')
export class WhatsAppWebhooksController {
  constructor(private readonly webhooks: WhatsAppWebhooksService) {}

  @Get(':channelId')
  @Header('Content-Type', 'text/plain')
  handshake(@ChannelId() channelId: string, @Query() query: Record<string, string>): Promise<string> {
    return this.webhooks.verifySubscription(channelId, query);
  }

  @Post(':channelId')
  @HttpCode(200)
  async notify(@ChannelId() channelId: string, @Req() request: RawBodyRequest<FastifyRequest>): Promise<{ received: true }> {
    const signature = request.headers['x-hub-signature-256'];
    await this.webhooks.accept(channelId, {
      rawBody: request.rawBody,
      signature: typeof signature === 'string' ? signature : undefined,
      body: request.body,
    });
    return { received: true };
  }
}
