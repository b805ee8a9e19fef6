import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, CurrentWorkspace, type Principal } from '../auth/principal.js';
import { Idempotent } from '../common/idempotency/idempotent.decorator.js';
import { PagedResultOf, type PagedResult } from '../common/paging/paged-result.js';
import { RateLimitPolicy } from '../rate-limiting/rate-limit-policy.js';
import { RateLimit } from '../rate-limiting/rate-limit.decorator.js';
import { SendMessageResultDto, SendTemplateDto } from './dto/send-template.dto.js';
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

  @Get('templates')
  @ApiOperation({ summary: 'List Templates (Service Account)' })
  @ApiOkResponse({ type: PagedResultOf(ServiceAccountTemplateDto) })
  async templatesList(
    @CurrentWorkspace() workspaceId: string,
    @Query() query: ListTemplatesQueryDto,
  ): Promise<PagedResult<ServiceAccountTemplateDto>> {
    const page = await this.templates.list(workspaceId, query);
    return { totalCount: page.totalCount, items: page.items.map(ServiceAccountTemplateDto.from) };
  }
}
