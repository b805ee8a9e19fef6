import { Global, Module } from '@nestjs/common';
import { AppConfig } from './app-config.js';
import { loadConfig } from './load-config.js';

/** Provides the typed {@link AppConfig}, validated once per process (a bad variable stops the boot). */
@Global()
@Module({
  providers: [{ provide: AppConfig, useFactory: loadConfig }],
  exports: [AppConfig],
})
export class AppConfigModule {}
