import { Body, Controller, Param, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, type Principal } from '../../auth/principal.js';
import { ParseIdPipe } from '../../common/http/uuid-param.pipe.js';
import { CallingSettingsService } from './calling-settings.service.js';
import { SetWhatsAppCallingDto, settingsOf, WhatsAppCallingDto } from './dto/calling-settings.dto.js';

@ApiTags('Channels API')
@ApiBearerAuth()
@Controller('v1/channels')
export class CallingSettingsController {
  constructor(private readonly settings: CallingSettingsService) {}

  @Put(':channelId/calling')
  @ApiOperation({
    summary: 'Set WhatsApp Calling',
    description:
      "Turns WhatsApp voice calls on or off for a WhatsApp channel and sets the number's calling settings at Meta (cloud-api: `POST /{phone-number-id}/settings`): call hours, whether callers are asked to allow call-backs, and the flows that answer users' calls (`inboundFlowId`, outside the hours `afterHoursFlowId`), and the approved template that asks a user for call permission outside the 24 h service window when a Create Outbound IVR names none (`permissionTemplate`, kept here only: one of the channel's stored templates, synced or kept from Meta's template webhooks, of that name and language and APPROVED, else a 400 `WhatsApp:TemplateNotFound` or `WhatsApp:TemplateNotApproved` naming `permissionTemplate`, as Send Template refuses it; a channel never synced has none). Replaces the whole setting. A 400, ours or Meta's (with Meta's words), changes nothing.",
  })
  @ApiBody({ type: SetWhatsAppCallingDto })
  @ApiOkResponse({ type: WhatsAppCallingDto })
  async set(
    @CurrentPrincipal() principal: Principal,
    @Param('channelId', new ParseIdPipe('Channels:Channel')) channelId: string,
    @Body() body: SetWhatsAppCallingDto,
  ): Promise<WhatsAppCallingDto> {
    const saved = await this.settings.set(principal.workspaceId, channelId, settingsOf(body), principal.serviceAccountId);
    return WhatsAppCallingDto.from(channelId, saved);
  }
}
