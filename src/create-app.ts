import { Logger as NestLogger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module.js';
import { registerQueueDashboard } from './admin/queue-dashboard.js';
import { CaseInsensitiveKeysPipe } from './common/validation/case-insensitive-keys.pipe.js';
import { createValidationPipe } from './common/validation/validation.pipe.js';
import { loadConfig } from './config/load-config.js';
import { ensureDatabase } from './database/ensure-database.js';
import { registerHttpMetrics } from './metrics/http-metrics.hook.js';
import { buildOpenApiDocument } from './openapi/openapi-document.js';
import { echoRequestId, requestIdOf } from './logging/request-id.js';

export interface CreateAppOptions {
  /** Build the module graph without connecting anywhere (OpenAPI generation). */
  preview?: boolean;
}

/** Creates the configured application (not yet listening). Shared by main.ts, tests, benchmarks and the OpenAPI script. */
export async function createApp(options: CreateAppOptions = {}): Promise<NestFastifyApplication> {
  const config = loadConfig();
  if (!options.preview) await ensureDatabase(config.database.url);
  const adapter = new FastifyAdapter({
    bodyLimit: 2 * 1024 * 1024,
    routerOptions: { maxParamLength: 500 },
    return503OnClosing: true,
    genReqId: requestIdOf,
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule, adapter, {
    bufferLogs: true,
    preview: options.preview,
    abortOnError: false,
  });
  if (!options.preview) app.useLogger(app.get(Logger));
  app.useGlobalPipes(new CaseInsensitiveKeysPipe(), createValidationPipe());
  app.enableShutdownHooks();
  echoRequestId(app);
  if (!options.preview) {
    registerHttpMetrics(app);
    await registerQueueDashboard(app, config);
  }
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: 'docs-json',
    customSiteTitle: 'Messaging API',
    swaggerOptions: { persistAuthorization: true },
  });
  return app;
}

/** Boots by APP_ROLE: `api` serves HTTP only, `worker` processes queues only, `all` both. */
export async function startApp(): Promise<NestFastifyApplication> {
  const config = loadConfig();
  const app = await createApp();
  if (config.runsApi) {
    await app.listen({ port: config.http.port, host: config.http.host });
    new NestLogger('Bootstrap').log(
      `API on ${config.http.publicBaseUrl} (Swagger UI at ${config.http.publicBaseUrl}/docs), role=${config.role}`,
    );
  } else {
    await app.init();
    new NestLogger('Bootstrap').log(`Worker started, role=${config.role}`);
  }
  return app;
}
