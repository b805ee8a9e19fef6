import { Body, Controller, Get, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentWorkspace } from '../auth/principal.js';
import { SendPolicyDto, UpdateSendPolicyDto } from './dto/send-policy.dto.js';
import { SendPolicyService } from './send-policy.service.js';

@ApiTags('Send Policy')
@ApiBearerAuth()
@Controller('v1/send-policy')
export class SendPolicyController {
  constructor(private readonly policy: SendPolicyService) {}

  @Get()
  @ApiOperation({
    summary: 'Get Send Policy',
    description:
      "The workspace's stop and start words: an inbound WhatsApp text that is exactly one of them opts the contact out of (in to) marketing messages.",
  })
  get(@CurrentWorkspace() workspaceId: string): Promise<SendPolicyDto> {
    return this.policy.get(workspaceId);
  }

  @Put()
  @ApiOperation({
    summary: 'Update Send Policy',
    description:
      'Changes only the parts present; null puts a part back to its defaults. Words are compared trimmed, with inner runs of spaces collapsed, case-insensitively, and only a whole message matches. A word in both lists, twice in one, blank or over 50 characters is a 400.',
  })
  update(@CurrentWorkspace() workspaceId: string, @Body() body: UpdateSendPolicyDto): Promise<SendPolicyDto> {
    return this.policy.update(workspaceId, body);
  }
}
