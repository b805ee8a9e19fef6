import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, CurrentWorkspace, type Principal } from '../auth/principal.js';
import { Idempotent } from '../common/idempotency/idempotent.decorator.js';
import { mapPage, PagedResultOf, type PagedResult } from '../common/paging/paged-result.js';
import { RateLimitPolicy } from '../rate-limiting/rate-limit-policy.js';
import { RateLimit } from '../rate-limiting/rate-limit.decorator.js';
import { SendMessageResultDto, SendTemplateDto } from './dto/send-template.dto.js';
import { SendAudioDto, SendFileDto, SendImageDto, SendInteractiveButtonsDto, SendTextDto, SendVideoDto } from './dto/send-message.dto.js';
import { FreeForm } from './free-form-message.js';
import { ListTemplatesQueryDto, ServiceAccountTemplateDto } from './dto/template.dto.js';
import { MessagingService } from './messaging.service.js';
import { TemplatesService } from './templates.service.js';

@ApiTags('Whatsapp API')
@ApiBearerAuth()
@Controller('v1/whatsapp/service-account')
export class WhatsAppController {
  constructor(
    private readonly messaging: MessagingService,
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
  sendTemplate(@CurrentPrincipal() principal: Principal, @Body() body: SendTemplateDto): Promise<SendMessageResultDto> {
    return this.messaging.sendTemplate(principal, body);
  }

  @Post('sendText')
  @HttpCode(200)
  @Idempotent()
  @RateLimit(RateLimitPolicy.WhatsAppSends)
  @ApiOperation({ summary: 'Send Text', description: 'Inside the 24-hour service window only.' })
  sendText(@CurrentPrincipal() principal: Principal, @Body() body: SendTextDto): Promise<SendMessageResultDto> {
    return this.messaging.sendFreeForm(principal, body.channelId, body, FreeForm.text(body));
  }

  @Post('sendImage')
  @HttpCode(200)
  @Idempotent()
  @RateLimit(RateLimitPolicy.WhatsAppSends)
  @ApiOperation({ summary: 'Send Image', description: 'Inside the 24-hour service window only.' })
  sendImage(@CurrentPrincipal() principal: Principal, @Body() body: SendImageDto): Promise<SendMessageResultDto> {
    return this.messaging.sendFreeForm(principal, body.channelId, body, FreeForm.image(body));
  }

  @Post('sendAudio')
  @HttpCode(200)
  @Idempotent()
  @RateLimit(RateLimitPolicy.WhatsAppSends)
  @ApiOperation({ summary: 'Send Audio', description: 'Inside the 24-hour service window only.' })
  sendAudio(@CurrentPrincipal() principal: Principal, @Body() body: SendAudioDto): Promise<SendMessageResultDto> {
    return this.messaging.sendFreeForm(principal, body.channelId, body, FreeForm.audio(body));
  }

  @Post('sendVideo')
  @HttpCode(200)
  @Idempotent()
  @RateLimit(RateLimitPolicy.WhatsAppSends)
  @ApiOperation({ summary: 'Send Video', description: 'Inside the 24-hour service window only.' })
  sendVideo(@CurrentPrincipal() principal: Principal, @Body() body: SendVideoDto): Promise<SendMessageResultDto> {
    return this.messaging.sendFreeForm(principal, body.channelId, body, FreeForm.video(body));
  }

  @Post('sendFile')
  @HttpCode(200)
  @Idempotent()
  @RateLimit(RateLimitPolicy.WhatsAppSends)
  @ApiOperation({ summary: 'Send File', description: 'Inside the 24-hour service window only.' })
  sendFile(@CurrentPrincipal() principal: Principal, @Body() body: SendFileDto): Promise<SendMessageResultDto> {
    return this.messaging.sendFreeForm(principal, body.channelId, body, FreeForm.file(body));
  }

  @Post('sendInteractiveButtons')
  @HttpCode(200)
  @Idempotent()
  @RateLimit(RateLimitPolicy.WhatsAppSends)
  @ApiOperation({ summary: 'Send Interactive Buttons', description: 'Up to 3 reply buttons; inside the 24-hour service window only.' })
  sendInteractiveButtons(@CurrentPrincipal() principal: Principal, @Body() body: SendInteractiveButtonsDto): Promise<SendMessageResultDto> {
    return this.messaging.sendFreeForm(principal, body.channelId, body, FreeForm.interactiveButtons(body));
  }

  @Get('templates')
  @ApiOperation({ summary: 'List Templates (Service Account)' })
  @ApiOkResponse({ type: PagedResultOf(ServiceAccountTemplateDto) })
  async templatesList(
    @CurrentWorkspace() workspaceId: string,
    @Query() query: ListTemplatesQueryDto,
  ): Promise<PagedResult<ServiceAccountTemplateDto>> {
    return mapPage(await this.templates.list(workspaceId, query), ServiceAccountTemplateDto.from);
  }
}
