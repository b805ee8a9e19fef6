import { Body, Controller, Get, Put } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentWorkspace } from '../auth/principal.js';
import { CallIntelligenceService } from './call-intelligence.service.js';
import { CallIntelligenceDto, SetCallIntelligenceDto } from './dto/call-intelligence.dto.js';

@ApiTags('Call Intelligence')
@ApiBearerAuth()
@Controller('v1/call-intelligence')
export class CallIntelligenceController {
  constructor(private readonly service: CallIntelligenceService) {}

  @Get()
  @ApiOperation({
    summary: 'Get Call Intelligence',
    description:
      "The workspace's speech-to-text and language-model providers for recorded calls (API.md §16), and its evaluation criteria. API keys are never returned: `apiKeySet` tells whether one is stored.",
  })
  get(@CurrentWorkspace() workspaceId: string): Promise<CallIntelligenceDto> {
    return this.service.get(workspaceId);
  }

  @Put()
  @ApiOperation({
    summary: 'Set Call Intelligence',
    description:
      'Replaces the settings whole. An `openai-compatible` provider needs `baseUrl` and `model`; an `apiKeyRef` (the key, or `env:CALL_INTELLIGENCE_KEY_<NAME>` for an environment variable of the worker) left out keeps the stored one, null removes it. ' +
      'Evaluation criteria need a summary provider and distinct names. Invalid input is a 400 and changes nothing.',
  })
  set(@CurrentWorkspace() workspaceId: string, @Body() body: SetCallIntelligenceDto): Promise<CallIntelligenceDto> {
    return this.service.set(workspaceId, body);
  }
}
