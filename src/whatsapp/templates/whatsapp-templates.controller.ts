import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentWorkspace } from '../../auth/principal.js';
import { mapPage, PagedResultOf, type PagedResult } from '../../common/paging/paged-result.js';
import { CreateTemplateDto, DeleteTemplateQueryDto, ListTemplatesQueryDto, ServiceAccountTemplateDto } from '../dto/template.dto.js';
import { TemplatesService } from './templates.service.js';

/** Templates managed here (API.md §14): created on and deleted from the channel's WhatsApp Business Account. */
@ApiTags('Whatsapp API')
@ApiBearerAuth()
@Controller('v1/whatsapp/templates')
export class WhatsAppTemplatesController {
  constructor(private readonly templates: TemplatesService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Create Template',
    description:
      "Submits a template to the channel's WhatsApp Business Account for review, with its own components (each placeholder with an example) or from Meta's template library (`libraryTemplateName`). Answered with status PENDING; Meta's webhooks then approve, reject or recategorise it (each a `whatsapp.template_updated` event). A sandbox channel approves it at once, right after answering.",
  })
  async create(@CurrentWorkspace() workspaceId: string, @Body() body: CreateTemplateDto): Promise<ServiceAccountTemplateDto> {
    return ServiceAccountTemplateDto.from(await this.templates.create(workspaceId, body));
  }

  @Get()
  @ApiOperation({
    summary: 'List Templates',
    description:
      'The templates of the workspace (or of one channel), with their status, category and quality score; filters Status, Category, Name.',
  })
  @ApiOkResponse({ type: PagedResultOf(ServiceAccountTemplateDto) })
  async list(
    @CurrentWorkspace() workspaceId: string,
    @Query() query: ListTemplatesQueryDto,
  ): Promise<PagedResult<ServiceAccountTemplateDto>> {
    return mapPage(await this.templates.list(workspaceId, query), ServiceAccountTemplateDto.from);
  }

  @Delete(':name')
  @ApiParam({
    name: 'name',
    type: String,
    description: 'The name of the template (every language of it is deleted).',
    example: 'spring_sale',
  })
  @ApiOperation({
    summary: 'Delete Template',
    description: "Deletes every language of the template name from the channel's WhatsApp Business Account and from this service.",
  })
  async delete(
    @CurrentWorkspace() workspaceId: string,
    @Param('name') name: string,
    @Query() query: DeleteTemplateQueryDto,
  ): Promise<{ deleted: number }> {
    return { deleted: await this.templates.deleteByName(workspaceId, query.channelId, name) };
  }
}
