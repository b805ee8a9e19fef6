import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentWorkspace } from '../auth/principal.js';
import { ParseIdPipe } from '../common/http/uuid-param.pipe.js';
import { ContactPropertyStatisticsDto } from './dto/property-statistics.dto.js';
import { SearchContactsDto } from './dto/search-contacts.dto.js';
import { PropertyStatisticsService } from './property-statistics.service.js';

const PropertyId = () => Param('id', new ParseIdPipe('ContactProperties:Property'));

@ApiTags('Contact Properties')
@ApiBearerAuth()
@Controller('v1/contact-property-definitions')
export class PropertyStatisticsController {
  constructor(private readonly statistics: PropertyStatisticsService) {}

  @Post(':id/statistics')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Contact Properties Statistics',
    description: 'Optional body: the Search Contacts filters, to compute over a subset.',
  })
  @ApiBody({ type: SearchContactsDto, required: false })
  compute(
    @CurrentWorkspace() workspaceId: string,
    @PropertyId() id: string,
    @Body() body: SearchContactsDto,
  ): Promise<ContactPropertyStatisticsDto> {
    return this.statistics.compute(workspaceId, id, body ?? {});
  }

  @Get(':id/statistics')
  @ApiOperation({
    summary: 'Contact Properties Statistics (All Contacts)',
    description: 'The statistics over all the workspace’s contacts (the POST form takes Search Contacts filters).',
  })
  computeAll(@CurrentWorkspace() workspaceId: string, @PropertyId() id: string): Promise<ContactPropertyStatisticsDto> {
    return this.statistics.compute(workspaceId, id);
  }
}
