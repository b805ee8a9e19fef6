import { Body, Controller, Get, Param, Patch, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, CurrentWorkspace, type Principal } from '../auth/principal.js';
import { ParseIdPipe } from '../common/http/uuid-param.pipe.js';
import { PagedRequestDto } from '../common/paging/paged-request.dto.js';
import { mapPage, PagedResultOf, type PagedResult } from '../common/paging/paged-result.js';
import { ChannelDto } from './dto/channel.dto.js';
import { UpdateChannelDto } from './dto/channel-config.dto.js';
import { ChannelsService } from './channels.service.js';

const PagedChannels = PagedResultOf(ChannelDto, 'PagedResultOfChannelDto');

@ApiTags('Channels API')
@ApiBearerAuth()
@Controller('v1/channels')
export class ChannelsController {
  constructor(private readonly channels: ChannelsService) {}

  @Get('service-account')
  @ApiOperation({
    summary: 'Get Channels',
    description:
      "The workspace's channels with their phone number, WhatsApp number and webhook addresses; use a channel's `id` as `channelId` in sends and calls.",
  })
  @ApiOkResponse({ type: PagedChannels })
  async list(@CurrentWorkspace() workspaceId: string, @Query() paging: PagedRequestDto): Promise<PagedResult<ChannelDto>> {
    return mapPage(await this.channels.list(workspaceId, paging), ChannelDto.from);
  }

  @Patch(':channelId')
  @ApiOperation({
    summary: 'Update Channel (Partial)',
    description:
      "Changes only the fields given: the channel's `name`, `icon`, `webhookUrl` (WhatsApp Message Webhook), `postCallWebhookUrl` (Call Webhook) or `businessId` (Meta's business portfolio: channels of the workspace with the same one share one messaging-limit count); `null` clears a URL, the icon or the businessId. Providers and credentials are the operators' (admin Update Channel).",
  })
  @ApiBody({ type: UpdateChannelDto })
  async update(
    @CurrentPrincipal() principal: Principal,
    @Param('channelId', new ParseIdPipe('Channels:Channel')) channelId: string,
    @Body() body: UpdateChannelDto,
  ): Promise<ChannelDto> {
    return ChannelDto.from(await this.channels.patch(principal.workspaceId, channelId, body, principal.serviceAccountId));
  }
}
