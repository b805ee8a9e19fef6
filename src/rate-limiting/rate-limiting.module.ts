import { Global, Module } from '@nestjs/common';
import { RateLimitService } from './rate-limit.service.js';
import { RateLimitsController } from './rate-limits.controller.js';
import { RateLimitGuard } from './rate-limit.guard.js';
import { UnauthenticatedRequestLimit } from './unauthenticated-request-limit.js';

@Global()
@Module({
  controllers: [RateLimitsController],
  providers: [RateLimitService, RateLimitGuard, UnauthenticatedRequestLimit],
  exports: [RateLimitService, RateLimitGuard, UnauthenticatedRequestLimit],
})
export class RateLimitingModule {}
