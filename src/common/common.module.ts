import { Global, Module } from '@nestjs/common';
import { SharedInvalidation } from './cache/shared-invalidation.js';
import { SecretBox } from './crypto/secret-box.js';
import { RateLimiter } from './rate/rate-limiter.js';

/** Cross-cutting providers every module may use. */
@Global()
@Module({ providers: [SecretBox, SharedInvalidation, RateLimiter], exports: [SecretBox, SharedInvalidation, RateLimiter] })
export class CommonModule {}
