import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RateLimitStatusDto } from './dto/rate-limit-status.dto.js';
import { CurrentWorkspace } from '../auth/principal.js';
import { WORKSPACE_POLICIES } from './rate-limit-policy.js';
import { RateLimitService } from './rate-limit.service.js';

@ApiTags('Rate Limiting')
@ApiBearerAuth()
@Controller('v1/rate-limits')
export class RateLimitsController {
  constructor(private readonly limits: RateLimitService) {}

  @Get()
  @ApiOperation({ summary: 'Get Rate Limits', description: "The workspace's limits and what remains of each." })
  async list(@CurrentWorkspace() workspaceId: string): Promise<RateLimitStatusDto[]> {
    const states = await Promise.all(WORKSPACE_POLICIES.map((policy) => this.limits.peek(policy, workspaceId)));
    return states.map(({ policy, limit, windowSeconds, remaining, resetSeconds }) => ({
      name: policy,
      limit,
      windowSeconds,
      remaining,
      resetSeconds,
    }));
  }
}
