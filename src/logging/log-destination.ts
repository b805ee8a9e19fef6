import type { DynamicModule } from '@nestjs/common';
import type { DestinationStream } from 'pino';

/** Where the logs go instead of stdout, when something provides it (the e2e tests read the log this way). */
export const LOG_DESTINATION = Symbol('LOG_DESTINATION');

/** A module, booted beside AppModule, that hands `destination` to the logger. */
export function logDestinationModule(destination: DestinationStream): DynamicModule {
  return {
    module: class LogDestinationModule {},
    global: true,
    providers: [{ provide: LOG_DESTINATION, useValue: destination }],
    exports: [LOG_DESTINATION],
  };
}
