import { Controller, Delete, HttpCode, Param } from '@nestjs/common';
import { ApiBearerAuth, ApiNoContentResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentWorkspace } from '../auth/principal.js';
import { ParseIdPipe } from '../common/http/uuid-param.pipe.js';
import { OutboundIvrService } from '../outbound-ivr/outbound-ivr.service.js';
import { ScheduledItemNotFound } from '../send-policy/send-policy.errors.js';
import { SendAcceptance } from '../whatsapp/outbound/send-acceptance.service.js';

@ApiTags('Send Policy')
@ApiBearerAuth()
@Controller('v1/scheduled')
export class ScheduledController {
  constructor(
    private readonly sends: SendAcceptance,
    private readonly ivr: OutboundIvrService,
  ) {}

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Cancel Scheduled Send',
    description:
      'Cancels a send or call that waits for its sendAt or for the end of quiet hours, before it leaves: `id` is the conversationEventId a send answered, ' +
      'or the id of an Outbound IVR request (which then ends with status 8 Cancelled). A message or call that has left already, ' +
      'was not scheduled or was cancelled already is a 409; an unknown id, or one of another workspace, is a 404.',
  })
  @ApiNoContentResponse({ description: 'Cancelled: nothing will be sent or called.' })
  async cancel(@CurrentWorkspace() workspaceId: string, @Param('id', new ParseIdPipe('Policy:ScheduledItem')) id: string): Promise<void> {
    if (await this.sends.cancelScheduled(workspaceId, id)) return;
    if (await this.ivr.cancelScheduled(workspaceId, id)) return;
    throw ScheduledItemNotFound(id);
  }
}
