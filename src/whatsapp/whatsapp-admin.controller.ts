import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { AdminKeyGuard } from '../admin/admin-key.guard.js';
import { Public } from '../auth/public.decorator.js';
import { ChannelsService } from '../channels/channels.service.js';
import { ParseIdPipe } from '../common/http/uuid-param.pipe.js';
import { PagedRequestDto } from '../common/paging/paged-request.dto.js';
import { PagedResultOf, type PagedResult } from '../common/paging/paged-result.js';
import { TimestampFormat } from '../common/time/timestamp-format.js';
import { SandboxMessageDto, ServiceAccountTemplateDto } from './dto/template.dto.js';
import { TemplateDefinitionDto } from './dto/template-definition.dto.js';
import { SandboxMessage } from './sandbox-message.entity.js';
import { TemplatesService } from './templates.service.js';
import { InboundService } from './inbound.service.js';
import { CloudApiWhatsAppProvider } from './providers/cloud-api.provider.js';
import { SandboxInboundDto } from './dto/send-message.dto.js';
import { ValidationError } from '../common/errors/domain-error.js';

const ChannelId = () => Param('channelId', new ParseIdPipe('Channels:Channel'));

/** Operators' WhatsApp routes (API.md §3): sandbox templates and what the sandbox sent. */
@ApiTags('Admin')
@ApiBearerAuth('admin-key')
@Public()
@UseGuards(AdminKeyGuard)
@Controller('admin/v1/channels')
export class WhatsAppAdminController {
  constructor(
    private readonly channels: ChannelsService,
    private readonly templates: TemplatesService,
    private readonly dataSource: DataSource,
    private readonly inbound: InboundService,
    private readonly cloudApi: CloudApiWhatsAppProvider,
  ) {}

  @Post(':channelId/templates')
  @HttpCode(200)
  @ApiOperation({ summary: 'Create Sandbox Template' })
  async createTemplate(@ChannelId() channelId: string, @Body() body: TemplateDefinitionDto): Promise<ServiceAccountTemplateDto> {
    return ServiceAccountTemplateDto.from(await this.templates.create(await this.channels.getForAdmin(channelId), body));
  }

  @Post(':channelId/templates/sync')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Sync Templates',
    description: 'Cloud API channels: pulls the approved templates from the WhatsApp Business Account.',
  })
  async syncTemplates(@ChannelId() channelId: string): Promise<{ synced: number }> {
    const channel = await this.channels.getForAdmin(channelId);
    const { firstUrl, fetchPage } = this.cloudApi.templatePages(channel);
    return { synced: await this.templates.sync(channel, fetchPage, firstUrl) };
  }

  @Post(':channelId/sandbox/inbound')
  @HttpCode(202)
  @ApiOperation({ summary: 'Inject Sandbox Inbound Message', description: 'Processed exactly as if the provider had delivered it.' })
  async sandboxInbound(@ChannelId() channelId: string, @Body() body: SandboxInboundDto): Promise<{ messageId: string }> {
    const channel = await this.channels.getForAdmin(channelId);
    if (channel.whatsAppProvider !== 'sandbox')
      throw new ValidationError('WhatsApp:NotASandboxChannel', 'Inbound messages are injected only on sandbox channels.');
    return { messageId: await this.inbound.injectSandbox(channel.workspaceId, channel.id, body) };
  }

  @Get(':channelId/sandbox/messages')
  @ApiOperation({
    summary: 'List Sandbox Messages',
    description: 'What the sandbox provider was asked to send, newest first: the exact Cloud API request bodies.',
  })
  @ApiOkResponse({ type: PagedResultOf(SandboxMessageDto) })
  async sandboxMessages(@ChannelId() channelId: string, @Query() paging: PagedRequestDto): Promise<PagedResult<SandboxMessageDto>> {
    await this.channels.getForAdmin(channelId);
    const [items, totalCount] = await this.dataSource.getRepository(SandboxMessage).findAndCount({
      where: { channelId },
      order: { creationTime: 'DESC', id: 'DESC' },
      skip: paging.skipCount,
      take: paging.maxResultCount,
    });
    return { totalCount, items: items.map((m) => ({ id: m.id, creationTime: TimestampFormat.utc(m.creationTime), request: m.request })) };
  }
}
