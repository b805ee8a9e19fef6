import { Body, Controller, Get, Put, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentWorkspace } from '../../auth/principal.js';
import { PutRateCardDto, RateCardDto } from './dto/rate-card.dto.js';
import { CategoryCountsDto, UsageDto, UsageQueryDto } from './dto/usage.dto.js';
import { WhatsAppUsage } from './usage.service.js';

@ApiTags('Whatsapp API')
@ApiBearerAuth()
@ApiExtraModels(CategoryCountsDto)
@Controller('v1/whatsapp')
export class WhatsAppUsageController {
  constructor(private readonly usage: WhatsAppUsage) {}

  @Get('usage')
  @ApiOperation({
    summary: 'Get WhatsApp Usage',
    description:
      'Messages Meta priced, billable and free, per category, grouped by day, category or campaign, from a rollup kept as statuses arrive. ' +
      'With a rate card, each group carries an estimatedCost in its currency; without one, estimatedCost is null.',
  })
  @ApiOkResponse({ type: UsageDto })
  get(@CurrentWorkspace() workspaceId: string, @Query() query: UsageQueryDto): Promise<UsageDto> {
    return this.usage.query(workspaceId, query);
  }

  @Get('rate-card')
  @ApiOperation({ summary: 'Get Rate Card', description: "The workspace's own prices per message category; a 404 when it has set none." })
  @ApiOkResponse({ type: RateCardDto })
  rateCard(@CurrentWorkspace() workspaceId: string): Promise<RateCardDto> {
    return this.usage.rateCard(workspaceId);
  }

  @Put('rate-card')
  @ApiOperation({
    summary: 'Set Rate Card',
    description: 'Replaces the workspace’s prices per message category (ISO 4217 currency); usage answers then estimate a cost.',
  })
  @ApiOkResponse({ type: RateCardDto })
  putRateCard(@CurrentWorkspace() workspaceId: string, @Body() body: PutRateCardDto): Promise<RateCardDto> {
    return this.usage.putRateCard(workspaceId, body);
  }
}
