import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, CurrentWorkspace, type Principal } from '../auth/principal.js';
import { Idempotent } from '../common/idempotency/idempotent.decorator.js';
import { mapPage, PagedResultOf, type PagedResult } from '../common/paging/paged-result.js';
import { RateLimitPolicy } from '../rate-limiting/rate-limit-policy.js';
import { RateLimit } from '../rate-limiting/rate-limit.decorator.js';
import { SendMessageResultDto, SendTemplateDto } from './dto/send-template.dto.js';
import {
  MarkAsReadDto,
  SendAudioDto,
  SendContactsDto,
  SendCtaUrlDto,
  SendFileDto,
  SendImageDto,
  SendInteractiveButtonsDto,
  SendListDto,
  SendLocationDto,
  SendReactionDto,
  SendTextDto,
  SendVideoDto,
} from './dto/send-message.dto.js';
import { FreeForm } from './outbound/free-form-message.js';
import { ListTemplatesQueryDto, ServiceAccountTemplateDto } from './dto/template.dto.js';
import { SendAcceptance } from './outbound/send-acceptance.service.js';
import { TemplatesService } from './templates/templates.service.js';

@ApiTags('Whatsapp API')
@ApiBearerAuth()
@Controller('v1/whatsapp/service-account')
export class WhatsAppController {
  constructor(
    private readonly sends: SendAcceptance,
    private readonly templates: TemplatesService,
  ) {}

  @Post('sendTemplate')
  @HttpCode(200)
  @Idempotent()
  @RateLimit(RateLimitPolicy.WhatsAppSends)
  @ApiOperation({
    summary: 'Send Template',
    description: 'Sends a pre-approved WhatsApp template message; answers once it is queued for delivery.',
  })
  @ApiBody({ type: SendTemplateDto })
  sendTemplate(@CurrentPrincipal() principal: Principal, @Body() body: SendTemplateDto): Promise<SendMessageResultDto> {
    return this.sends.sendTemplate(principal, body);
  }

  @Post('sendText')
  @HttpCode(200)
  @Idempotent()
  @RateLimit(RateLimitPolicy.WhatsAppSends)
  @ApiOperation({ summary: 'Send Text', description: 'Inside the 24-hour service window only.' })
  sendText(@CurrentPrincipal() principal: Principal, @Body() body: SendTextDto): Promise<SendMessageResultDto> {
    return this.sends.sendFreeForm(principal, body.channelId, body, FreeForm.text(body));
  }

  @Post('sendImage')
  @HttpCode(200)
  @Idempotent()
  @RateLimit(RateLimitPolicy.WhatsAppSends)
  @ApiBody({ type: SendImageDto })
  @ApiOperation({
    summary: 'Send Image',
    description:
      'Inside the 24-hour service window only. By URL, or by `mediaId` (a file uploaded with the Support API, uploaded to WhatsApp once per channel and sent by id).',
  })
  sendImage(@CurrentPrincipal() principal: Principal, @Body() body: SendImageDto): Promise<SendMessageResultDto> {
    return this.sends.sendFreeForm(principal, body.channelId, body, FreeForm.image(body));
  }

  @Post('sendAudio')
  @HttpCode(200)
  @Idempotent()
  @RateLimit(RateLimitPolicy.WhatsAppSends)
  @ApiBody({ type: SendAudioDto })
  @ApiOperation({
    summary: 'Send Audio',
    description:
      'Inside the 24-hour service window only. By URL, or by `mediaId` (a file uploaded with the Support API, uploaded to WhatsApp once per channel and sent by id).',
  })
  sendAudio(@CurrentPrincipal() principal: Principal, @Body() body: SendAudioDto): Promise<SendMessageResultDto> {
    return this.sends.sendFreeForm(principal, body.channelId, body, FreeForm.audio(body));
  }

  @Post('sendVideo')
  @HttpCode(200)
  @Idempotent()
  @RateLimit(RateLimitPolicy.WhatsAppSends)
  @ApiBody({ type: SendVideoDto })
  @ApiOperation({
    summary: 'Send Video',
    description:
      'Inside the 24-hour service window only. By URL, or by `mediaId` (a file uploaded with the Support API, uploaded to WhatsApp once per channel and sent by id).',
  })
  sendVideo(@CurrentPrincipal() principal: Principal, @Body() body: SendVideoDto): Promise<SendMessageResultDto> {
    return this.sends.sendFreeForm(principal, body.channelId, body, FreeForm.video(body));
  }

  @Post('sendFile')
  @HttpCode(200)
  @Idempotent()
  @RateLimit(RateLimitPolicy.WhatsAppSends)
  @ApiBody({ type: SendFileDto })
  @ApiOperation({
    summary: 'Send File',
    description:
      'Inside the 24-hour service window only. By URL, or by `mediaId` (a file uploaded with the Support API, uploaded to WhatsApp once per channel and sent by id).',
  })
  sendFile(@CurrentPrincipal() principal: Principal, @Body() body: SendFileDto): Promise<SendMessageResultDto> {
    return this.sends.sendFreeForm(principal, body.channelId, body, FreeForm.file(body));
  }

  @Post('sendInteractiveButtons')
  @HttpCode(200)
  @Idempotent()
  @RateLimit(RateLimitPolicy.WhatsAppSends)
  @ApiOperation({ summary: 'Send Interactive Buttons', description: 'Up to 3 reply buttons; inside the 24-hour service window only.' })
  sendInteractiveButtons(@CurrentPrincipal() principal: Principal, @Body() body: SendInteractiveButtonsDto): Promise<SendMessageResultDto> {
    return this.sends.sendFreeForm(principal, body.channelId, body, FreeForm.interactiveButtons(body));
  }

  @Post('sendLocation')
  @HttpCode(200)
  @Idempotent()
  @RateLimit(RateLimitPolicy.WhatsAppSends)
  @ApiBody({ type: SendLocationDto })
  @ApiOperation({
    summary: 'Send Location',
    description: 'A map pin with an optional name and address; inside the 24-hour service window only.',
  })
  sendLocation(@CurrentPrincipal() principal: Principal, @Body() body: SendLocationDto): Promise<SendMessageResultDto> {
    return this.sends.sendFreeForm(principal, body.channelId, body, FreeForm.location(body));
  }

  @Post('sendContacts')
  @HttpCode(200)
  @Idempotent()
  @RateLimit(RateLimitPolicy.WhatsAppSends)
  @ApiBody({ type: SendContactsDto })
  @ApiOperation({ summary: 'Send Contacts', description: '1 to 10 contact cards; inside the 24-hour service window only.' })
  sendContacts(@CurrentPrincipal() principal: Principal, @Body() body: SendContactsDto): Promise<SendMessageResultDto> {
    return this.sends.sendFreeForm(principal, body.channelId, body, FreeForm.contacts(body));
  }

  @Post('sendReaction')
  @HttpCode(200)
  @Idempotent()
  @RateLimit(RateLimitPolicy.WhatsAppSends)
  @ApiBody({ type: SendReactionDto })
  @ApiOperation({
    summary: 'Send Reaction',
    description:
      'An emoji on a message of the conversation (`messageId` = its `conversationEventId`), or "" to remove it; inside the 24-hour service window only.',
  })
  sendReaction(@CurrentPrincipal() principal: Principal, @Body() body: SendReactionDto): Promise<SendMessageResultDto> {
    return this.sends.sendReaction(principal, body);
  }

  @Post('sendList')
  @HttpCode(200)
  @Idempotent()
  @RateLimit(RateLimitPolicy.WhatsAppSends)
  @ApiBody({ type: SendListDto })
  @ApiOperation({
    summary: 'Send List',
    description: 'A button that opens a list of up to 10 rows in up to 10 sections; inside the 24-hour service window only.',
  })
  sendList(@CurrentPrincipal() principal: Principal, @Body() body: SendListDto): Promise<SendMessageResultDto> {
    return this.sends.sendFreeForm(principal, body.channelId, body, FreeForm.list(body));
  }

  @Post('sendCtaUrl')
  @HttpCode(200)
  @Idempotent()
  @RateLimit(RateLimitPolicy.WhatsAppSends)
  @ApiBody({ type: SendCtaUrlDto })
  @ApiOperation({ summary: 'Send CTA URL', description: 'A button that opens an https URL; inside the 24-hour service window only.' })
  sendCtaUrl(@CurrentPrincipal() principal: Principal, @Body() body: SendCtaUrlDto): Promise<SendMessageResultDto> {
    return this.sends.sendFreeForm(principal, body.channelId, body, FreeForm.ctaUrl(body));
  }

  @Post('markAsRead')
  @HttpCode(204)
  @RateLimit(RateLimitPolicy.WhatsAppSends)
  @ApiBody({ type: MarkAsReadDto })
  @ApiOperation({
    summary: 'Mark As Read',
    description:
      'Shows the contact an inbound message (and the earlier ones) as read, optionally with a typing indicator; any time, not only in the service window.',
  })
  @ApiNoContentResponse({ description: 'Queued for the provider.' })
  markAsRead(@CurrentPrincipal() principal: Principal, @Body() body: MarkAsReadDto): Promise<void> {
    return this.sends.markAsRead(principal, body);
  }

  @Get('templates')
  @ApiOperation({
    summary: 'List Templates (Service Account)',
    description: "The channel's WhatsApp templates, with the parameters each expects for Send Template.",
  })
  @ApiOkResponse({ type: PagedResultOf(ServiceAccountTemplateDto) })
  async templatesList(
    @CurrentWorkspace() workspaceId: string,
    @Query() query: ListTemplatesQueryDto,
  ): Promise<PagedResult<ServiceAccountTemplateDto>> {
    return mapPage(await this.templates.list(workspaceId, query), ServiceAccountTemplateDto.from);
  }
}
