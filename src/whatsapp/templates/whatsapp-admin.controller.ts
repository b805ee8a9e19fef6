import { Body, Controller, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminKeyGuard } from '../../admin/admin-key.guard.js';
import { Public } from '../../auth/public.decorator.js';
import { ParseIdPipe } from '../../common/http/uuid-param.pipe.js';
import { PagedRequestDto } from '../../common/paging/paged-request.dto.js';
import { mapPage, PagedResultOf, type PagedResult } from '../../common/paging/paged-result.js';
import { SandboxMessageDto, ServiceAccountTemplateDto } from '../dto/template.dto.js';
import { TemplateDefinitionDto } from '../dto/template-definition.dto.js';
import { TemplatesService } from './templates.service.js';
import { InboundService } from '../inbound/inbound.service.js';
import { SandboxWhatsAppProvider } from '../providers/sandbox.provider.js';
import { SandboxInboundDto, SandboxUserPreferenceDto } from '../dto/sandbox-inbound.dto.js';
import { SandboxQualityUpdateDto } from '../dto/sandbox-quality-update.dto.js';
import { SandboxTiers } from '../inbound/sandbox-tiers.service.js';

const ChannelId = () => Param('channelId', new ParseIdPipe('Channels:Channel'));

/** Operators' WhatsApp routes (API.md §3): sandbox templates and what the sandbox sent. */
@ApiTags('Admin')
@ApiBearerAuth('admin-key')
@Public()
@UseGuards(AdminKeyGuard)
@Controller('admin/v1/channels')
export class WhatsAppAdminController {
  constructor(
    private readonly templates: TemplatesService,
    private readonly inbound: InboundService,
    private readonly sandbox: SandboxWhatsAppProvider,
    private readonly sandboxTiers: SandboxTiers,
  ) {}

  @Post(':channelId/templates')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Create Sandbox Template',
    description: 'Adds a template to a sandbox channel, as if Meta had approved it (TemplateDefinition mirrors a WhatsApp template).',
  })
  async createTemplate(@ChannelId() channelId: string, @Body() body: TemplateDefinitionDto): Promise<ServiceAccountTemplateDto> {
    return ServiceAccountTemplateDto.from(await this.templates.createForOperator(channelId, body));
  }

  @Post(':channelId/templates/sync')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Sync Templates',
    description: 'Cloud API channels: pulls the approved templates from the WhatsApp Business Account.',
  })
  async syncTemplates(@ChannelId() channelId: string): Promise<{ synced: number }> {
    return { synced: await this.templates.syncForOperator(channelId) };
  }

  @Post(':channelId/sandbox/inbound')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Inject Sandbox Inbound Message',
    description:
      'Processed exactly as if the provider had delivered it: any inbound type (text, image, video, audio, document, sticker, location, contacts, button, interactive, reaction, unsupported), files from an upload of the workspace (`mediaId`), a phone or BSUID sender, a profile name.',
  })
  async sandboxInbound(@ChannelId() channelId: string, @Body() body: SandboxInboundDto): Promise<{ messageId: string }> {
    return { messageId: await this.inbound.injectSandbox(channelId, SandboxInboundDto.toMessage(body)) };
  }

  @Post(':channelId/sandbox/user-preferences')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Inject Sandbox User Preference',
    description:
      "Meta's `user_preferences` notification, processed exactly as if the provider had delivered it: `stop` (the user stopped marketing messages: their contact's WhatsApp marketing consent becomes OptedOut, source Provider) or `resume` (OptedIn). The contact is created when there is none.",
  })
  async sandboxUserPreference(@ChannelId() channelId: string, @Body() body: SandboxUserPreferenceDto): Promise<{ accepted: boolean }> {
    await this.inbound.injectSandboxPreference(
      channelId,
      { phoneNumber: body.fromNumber ?? null, userId: body.fromUserId ?? null },
      body.value,
    );
    return { accepted: true };
  }

  @Post(':channelId/sandbox/quality-update')
  @HttpCode(202)
  @ApiOperation({
    summary: 'Inject Sandbox Quality Update',
    description:
      "Meta's `phone_number_quality_update` about a sandbox channel's number, processed exactly as if Meta had sent it: the throughput (THROUGHPUT_UPGRADE: 1,000/s), the business portfolio's messaging limit (`messagingLimit`, Meta's tier name) and the quality rating change at once, an operator's earlier PUT of limits gives way, and each channel changed is a `channel.quality_updated` event. 400 for a channel that is not a sandbox channel.",
  })
  async sandboxQualityUpdate(@ChannelId() channelId: string, @Body() body: SandboxQualityUpdateDto): Promise<{ accepted: boolean }> {
    await this.sandboxTiers.qualityUpdate(channelId, body);
    return { accepted: true };
  }

  @Get(':channelId/sandbox/messages')
  @ApiOperation({
    summary: 'List Sandbox Messages',
    description: 'What the sandbox provider was asked to send, newest first: the exact Cloud API request bodies.',
  })
  @ApiOkResponse({ type: PagedResultOf(SandboxMessageDto) })
  async sandboxMessages(@ChannelId() channelId: string, @Query() paging: PagedRequestDto): Promise<PagedResult<SandboxMessageDto>> {
    return mapPage(await this.sandbox.sentMessages(channelId, paging), SandboxMessageDto.from);
  }
}
