import { Body, Controller, Param, Put, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminKeyGuard } from '../admin/admin-key.guard.js';
import { Public } from '../auth/public.decorator.js';
import { ParseIdPipe } from '../common/http/uuid-param.pipe.js';
import { ChannelsService } from './channels.service.js';
import { SandboxMachinesDto, SandboxMachinesResponseDto } from './dto/sandbox-machines.dto.js';

/** Operators' route (API.md §14): which numbers the sandbox voice provider answers as a machine. */
@ApiTags('Admin')
@ApiBearerAuth('admin-key')
@Public()
@UseGuards(AdminKeyGuard)
@Controller('admin/v1/channels')
export class SandboxMachinesAdminController {
  constructor(private readonly channels: ChannelsService) {}

  @Put(':channelId/sandbox/machines')
  @ApiOperation({
    summary: 'Set Sandbox Answering Machines',
    description:
      "Replaces the numbers a sandbox voice channel answers with a simulated answering machine. A call to one of them with `machineDetection` Hangup ends at once, with LeaveMessage plays the voicemail after the machine's beep " +
      '(both end with result 8 AnsweringMachine); with Off the machine just listens and presses nothing. 400 for a channel that is not a sandbox voice channel.',
  })
  @ApiOkResponse({ type: SandboxMachinesResponseDto })
  async put(
    @Param('channelId', new ParseIdPipe('Channels:Channel')) channelId: string,
    @Body() body: SandboxMachinesDto,
  ): Promise<SandboxMachinesResponseDto> {
    return { channelId, numbers: await this.channels.setSandboxMachines(channelId, body.numbers) };
  }
}
