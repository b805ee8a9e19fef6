import { Body, Controller, Header, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Public } from '../auth/public.decorator.js';
import { ParseIdPipe } from '../common/http/uuid-param.pipe.js';
import type { TwilioParams } from './providers/twilio-status.js';
import { TwilioCallbacksService } from './twilio-callbacks.service.js';

const Id = new ParseIdPipe('OutboundIvr:Request');
const ChannelId = new ParseIdPipe('Channels:Channel');

/**
 * What a Twilio-compatible provider calls back: TwiML for each exchange and status reports.
 * Public, because the provider has no token; every request must carry a valid X-Twilio-Signature.
 */
@ApiExcludeController()
@Public()
@Controller('v1/voice/twilio')
export class TwilioCallbacksController {
  constructor(private readonly callbacks: TwilioCallbacksService) {}

  @Post('calls/:id/answer')
  @HttpCode(200)
  @Header('content-type', 'text/xml')
  answer(@Param('id', Id) id: string, @Body() params: TwilioParams, @Req() req: FastifyRequest): Promise<string> {
    return this.callbacks.answer(id, signed(req, params));
  }

  @Post('calls/:id/gather')
  @HttpCode(200)
  @Header('content-type', 'text/xml')
  gather(
    @Param('id', Id) id: string,
    @Query('turn') turn: string,
    @Body() params: TwilioParams,
    @Req() req: FastifyRequest,
  ): Promise<string> {
    return this.callbacks.gather(id, Number(turn), signed(req, params));
  }

  @Post('calls/:id/status')
  @HttpCode(204)
  status(@Param('id', Id) id: string, @Body() params: TwilioParams, @Req() req: FastifyRequest): Promise<void> {
    return this.callbacks.status(id, signed(req, params));
  }

  /** Twilio's RecordingStatusCallback: the call's recording is ready to fetch, or there is none. */
  @Post('calls/:id/recording')
  @HttpCode(204)
  recording(@Param('id', Id) id: string, @Body() params: TwilioParams, @Req() req: FastifyRequest): Promise<void> {
    return this.callbacks.recording(id, signed(req, params));
  }

  @Post('channels/:channelId/inbound')
  @HttpCode(200)
  @Header('content-type', 'text/xml')
  inbound(@Param('channelId', ChannelId) channelId: string, @Body() params: TwilioParams, @Req() req: FastifyRequest): Promise<string> {
    return this.callbacks.inbound(channelId, signed(req, params));
  }

  @Post('channels/:channelId/inbound/status')
  @HttpCode(204)
  inboundStatus(@Param('channelId', ChannelId) channelId: string, @Body() params: TwilioParams, @Req() req: FastifyRequest): Promise<void> {
    return this.callbacks.inboundStatus(channelId, signed(req, params));
  }
}

/** The parts of a callback its signature covers: the path with its query, and the form fields. */
function signed(req: FastifyRequest, params: TwilioParams) {
  return { path: req.url, params: params ?? {}, signature: req.headers['x-twilio-signature'] };
}
