import { Global, Module } from '@nestjs/common';
import { SecretBox } from './crypto/secret-box.js';

/** Cross-cutting providers every module may use. */
@Global()
@Module({ providers: [SecretBox], exports: [SecretBox] })
export class CommonModule {}
