import { Global, Module } from '@nestjs/common';
import { RateLimitService } from './rate-limit.service.js';
import { RateLimitsController } from './rate-limits.controller.js';
import { RateLimitGuard } from './rate-limit.guard.js';

@Global()
@Module({
  controllers: [RateLimitsController],
  providers: [RateLimitService, RateLimitGuard],
  exports: [RateLimitService, RateLimitGuard],
})
export class RateLimitingModule {}
