import { Controller, Get, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentWorkspace } from '../auth/principal.js';
import { PagedRequestDto } from '../common/paging/paged-request.dto.js';
import { mapPage, PagedResultOf, type PagedResult } from '../common/paging/paged-result.js';
import { ChannelDto } from './dto/channel.dto.js';
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
}
