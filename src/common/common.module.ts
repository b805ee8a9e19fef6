import { Global, Module } from '@nestjs/common';
import { SharedInvalidation } from './cache/shared-invalidation.js';
import { SecretBox } from './crypto/secret-box.js';

/** Cross-cutting providers every module may use. */
@Global()
@Module({ providers: [SecretBox, SharedInvalidation], exports: [SecretBox, SharedInvalidation] })
export class CommonModule {}
