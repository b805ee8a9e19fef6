import { Body, Controller, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminKeyGuard } from '../admin/admin-key.guard.js';
import { Public } from '../auth/public.decorator.js';
import { ParseIdPipe } from '../common/http/uuid-param.pipe.js';
import { SandboxUserCallDto, SandboxUserCallResponseDto } from './dto/sandbox-user-call.dto.js';
import { WhatsAppUserCalls } from './whatsapp-user-calls.service.js';

/** Operators' route (API.md §15): a WhatsApp user calling a sandbox number, without Meta. */
@ApiTags('Admin')
@ApiBearerAuth('admin-key')
@Public()
@UseGuards(AdminKeyGuard)
@Controller('admin/v1/channels')
export class SandboxUserCallsAdminController {
  constructor(private readonly userCalls: WhatsAppUserCalls) {}

  @Post(':channelId/sandbox/user-call')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Simulate Sandbox WhatsApp User Call',
    description:
      'A WhatsApp user calls a sandbox WhatsApp number with calling enabled, handled exactly as a call from Meta: inside the call hours the ' +
      "channel's `inboundFlowId` flow answers it, outside them its `afterHoursFlowId`; with no flow for the hour the call is rejected " +
      "(`outboundIvrRequestId` null). The answered call is an inbound IVR record (`direction` 1) that runs the flow; the sandbox plays the caller, pressing the channel's " +
      '`voice.sandbox.pressDigits` one per question (none: silence) with `talkMs` per prompt. When it ends, the Call Webhook (`type` 1, `channelKind` "WhatsApp") ' +
      "goes to the channel's postCallWebhookUrl and the call is in the caller's timeline. 400 for a channel that is not a sandbox WhatsApp number with calling enabled.",
  })
  @ApiOkResponse({ type: SandboxUserCallResponseDto })
  simulate(
    @Param('channelId', new ParseIdPipe('Channels:Channel')) channelId: string,
    @Body() body: SandboxUserCallDto,
  ): Promise<SandboxUserCallResponseDto> {
    return this.userCalls.simulate(channelId, body.fromNumber);
  }
}
