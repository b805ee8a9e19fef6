import { Body, Controller, Get, Param, Put, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminKeyGuard } from '../admin/admin-key.guard.js';
import { CurrentWorkspace } from '../auth/principal.js';
import { Public } from '../auth/public.decorator.js';
import { ParseIdPipe } from '../common/http/uuid-param.pipe.js';
import { ChannelLimitsDto, UpdateChannelLimitsDto } from './dto/channel-limits.dto.js';
import { GovernorService } from './governor.service.js';

const ChannelId = () => Param('channelId', new ParseIdPipe('Channels:Channel'));

@ApiTags('Channels API')
@ApiBearerAuth()
@Controller('v1/channels')
export class ChannelLimitsController {
  constructor(private readonly governor: GovernorService) {}

  @Get(':channelId/limits')
  @ApiOperation({
    summary: 'Get Channel Limits',
    description:
      "The channel's send governor: its tiers (throughput, messaging limit, calls per second, concurrent calls, set by the operator) and what it sees now " +
      '(messages started in the last second, unique recipients of business-initiated conversations in the last 24 h and how many more are allowed, calls in progress).',
  })
  @ApiOkResponse({ type: ChannelLimitsDto })
  async get(@CurrentWorkspace() workspaceId: string, @ChannelId() channelId: string): Promise<ChannelLimitsDto> {
    return ChannelLimitsDto.from(await this.governor.usage(workspaceId, channelId));
  }
}

/** Operators' route (API.md §13): the number's tiers. */
@ApiTags('Admin')
@ApiBearerAuth('admin-key')
@Public()
@UseGuards(AdminKeyGuard)
@Controller('admin/v1/channels')
export class ChannelLimitsAdminController {
  constructor(private readonly governor: GovernorService) {}

  @Put(':channelId/limits')
  @ApiOperation({
    summary: 'Set Channel Limits',
    description:
      "Sets the channel's send tiers; only the fields present change. `throughputPerSecond` 1-1000 (default 80), `messagingLimit` one of 250, 1000, 2000, 10000, 100000 or null for unlimited " +
      '(default 1000 on a cloud-api channel, unlimited on a sandbox one), `callsPerSecond` (default 1), `concurrentCalls` (default 10). Every API process and worker applies them at once. ' +
      "The messaging limit of a channel with a `businessId` is its business portfolio's: set here on any of its channels, it holds for all of them (a channel joining a portfolio takes the portfolio's). " +
      "While Meta restricts the account's business-initiated messaging (`account_update`) the limit in force is 0; the limit set stays underneath and returns when Meta lifts the restriction or it expires.",
  })
  @ApiOkResponse({ type: ChannelLimitsDto })
  async put(@ChannelId() channelId: string, @Body() body: UpdateChannelLimitsDto): Promise<ChannelLimitsDto> {
    return ChannelLimitsDto.from(await this.governor.put(channelId, body));
  }
}
