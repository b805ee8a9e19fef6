import { Controller, Get, Header, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import type { RawBodyRequest } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { DataSource } from 'typeorm';
import { Public } from '../auth/public.decorator.js';
import { ChannelsService } from '../channels/channels.service.js';
import { ChannelNotFound } from '../channels/channels.errors.js';
import { DomainError, ErrorKind } from '../common/errors/domain-error.js';
import { ParseIdPipe } from '../common/http/uuid-param.pipe.js';
import { Outbox } from '../queue/outbox.service.js';
import { JobName } from '../queue/queue-names.js';
import { validHubSignature } from './cloud-webhook.js';

/**
 * Meta's side of a cloud-api channel: the subscription handshake and the webhook notifications,
 * checked against the channel's verify token and app secret, queued for the worker and answered at once.
 */
@ApiExcludeController()
@Public()
@Controller('v1/whatsapp/webhooks')
export class WhatsAppWebhooksController {
  constructor(
    private readonly channels: ChannelsService,
    private readonly outbox: Outbox,
    private readonly dataSource: DataSource,
  ) {}

  @Get(':channelId')
  @Header('Content-Type', 'text/plain')
  async handshake(
    @Param('channelId', new ParseIdPipe('Channels:Channel')) channelId: string,
    @Query() query: Record<string, string>,
  ): Promise<string> {
    const channel = await this.channels.findUnscopedForProviderCallback(channelId);
    const { verifyToken } = this.channels.whatsAppCredentials(channel);
    if (query['hub.mode'] !== 'subscribe' || !verifyToken || query['hub.verify_token'] !== verifyToken) {
      throw new DomainError('WhatsApp:VerificationFailed', 'hub.verify_token does not match this channel.', ErrorKind.Forbidden);
    }
    return query['hub.challenge'] ?? '';
  }

  @Post(':channelId')
  @HttpCode(200)
  async notify(
    @Param('channelId', new ParseIdPipe('Channels:Channel')) channelId: string,
    @Req() request: RawBodyRequest<FastifyRequest>,
  ): Promise<{ received: true }> {
    const channel = await this.channels.findUnscopedForProviderCallback(channelId);
    if (!channel.hasWhatsApp) throw ChannelNotFound(channelId);
    const { appSecret } = this.channels.whatsAppCredentials(channel);
    const signature = request.headers['x-hub-signature-256'];
    if (!request.rawBody || !validHubSignature(request.rawBody, typeof signature === 'string' ? signature : undefined, appSecret)) {
      throw new DomainError('WhatsApp:InvalidSignature', 'X-Hub-Signature-256 does not match the body.', ErrorKind.Unauthenticated);
    }
    await this.dataSource.transaction((manager) =>
      this.outbox.enqueue(manager, [
        {
          jobName: JobName.ProcessWhatsAppWebhook,
          workspaceId: channel.workspaceId,
          payload: { channelId: channel.id, notification: request.body as Record<string, unknown> },
        },
      ]),
    );
    this.outbox.afterCommit();
    return { received: true };
  }
}
