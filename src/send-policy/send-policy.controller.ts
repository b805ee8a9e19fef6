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
      "The workspace's send policy: quiet hours (marketing templates and calls that would land inside them, in the contact's time zone, are scheduled for their end), " +
      "where a contact's time zone comes from (a contact property, else its number's country, a country with several zones counting as its capital's, else the default), " +
      'the stop and start words (an inbound WhatsApp text that is exactly one of them opts the contact out of, or in to, marketing messages) and the frequency cap on marketing templates.',
  })
  get(@CurrentWorkspace() workspaceId: string): Promise<SendPolicyDto> {
    return this.policy.get(workspaceId);
  }

  @Put()
  @ApiOperation({
    summary: 'Update Send Policy',
    description:
      'Changes only the parts present (quietHours, timezone, stopWords, startWords, frequencyCap); null puts a part back to its default (no quiet hours, ' +
      'fromPhoneNumber with Asia/Riyadh as the default zone, the default words, no cap). A timezone object replaces that part whole (fields left out take their defaults). ' +
      'Words are compared trimmed, with inner runs of spaces collapsed, case-insensitively, and only a whole message matches. ' +
      'A word in both lists, twice in one, blank or over 50 characters, a time that is not HH:MM, equal start and end, an unknown IANA zone, ' +
      'or a property that is not a Text or Select property of the workspace is a 400 and changes nothing.',
  })
  update(@CurrentWorkspace() workspaceId: string, @Body() body: UpdateSendPolicyDto): Promise<SendPolicyDto> {
    return this.policy.update(workspaceId, body);
  }
}
