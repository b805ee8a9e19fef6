import type { LoggerService } from '@nestjs/common';

/**
 * Nest's contexts that report how the application is put together: every module initialised, every
 * controller and route mapped (about 190 lines), the factory starting. Useful when wiring breaks,
 * noise otherwise: at info they push the start's few useful lines off the screen.
 */
export const WIRING_CONTEXTS: ReadonlySet<string> = new Set([
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestFactory',
  'NestApplication',
]);

/** The application's logger, with Nest's wiring lines written at debug instead of info. */
export class WiringAtDebugLogger implements LoggerService {
  constructor(private readonly inner: LoggerService & { debug(message: unknown, ...optionalParams: unknown[]): void }) {}

  log(message: unknown, ...optionalParams: unknown[]): void {
    // Nest passes the context last.
    const context = optionalParams[optionalParams.length - 1];
    if (typeof context === 'string' && WIRING_CONTEXTS.has(context)) this.inner.debug(message, ...optionalParams);
    else this.inner.log(message, ...optionalParams);
  }

  error(message: unknown, ...optionalParams: unknown[]): void {
    this.inner.error(message, ...optionalParams);
  }

  warn(message: unknown, ...optionalParams: unknown[]): void {
    this.inner.warn(message, ...optionalParams);
  }

  debug(message: unknown, ...optionalParams: unknown[]): void {
    this.inner.debug(message, ...optionalParams);
  }

  verbose(message: unknown, ...optionalParams: unknown[]): void {
    this.inner.verbose?.(message, ...optionalParams);
  }

  fatal(message: unknown, ...optionalParams: unknown[]): void {
    this.inner.fatal?.(message, ...optionalParams);
  }
}
