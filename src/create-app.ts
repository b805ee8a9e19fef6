import type { AddressInfo } from 'node:net';
import { type DynamicModule, Logger as NestLogger, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import fastifyMultipart from '@fastify/multipart';
import { Logger, PinoLogger } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import { AppModule } from './app.module.js';
import { registerQueueDashboard } from './admin/queue-dashboard.js';
import { answerFrameworkError } from './common/errors/framework-errors.js';
import { CaseInsensitiveKeysPipe } from './common/validation/case-insensitive-keys.pipe.js';
import { createValidationPipe } from './common/validation/validation.pipe.js';
import { refuseUnsafeInput } from './common/validation/unsafe-input.js';
import { loadConfig } from './config/load-config.js';
import { ensureDatabase } from './database/ensure-database.js';
import { runMigrations } from './database/run-migrations.js';
import { registerHttpMetrics } from './metrics/http-metrics.hook.js';
import { registerLiveness } from './health/liveness.js';
import { registerWhatsAppWebhookRoute } from './whatsapp/inbound/whatsapp-webhook-route.js';
import { buildOpenApiDocument } from './openapi/openapi-document.js';
import { FOCUS_CLIENT_CREDENTIALS_ON_AUTHORIZE } from './openapi/swagger-ui-authorize.js';
import { assignRequestId, echoRequestId } from './logging/request-id.js';
import { logDestinationModule } from './logging/log-destination.js';
import { registerRequestLog } from './logging/request-log.hook.js';
import { WiringAtDebugLogger } from './logging/wiring-at-debug.logger.js';
import { apiStartedMessage, listeningUrl } from './common/http/listening-url.js';
import { demoCredentialsText } from './database/demo-credentials.js';
import { DemoSeeder } from './database/demo-seeder.service.js';
import { MULTIPART_OPTIONS } from './support/multipart-file.js';
import { answerOversizedBodies } from './common/http/oversized-body.js';
import { enableCors } from './common/http/cors.js';

export interface CreateAppOptions {
  /** Build the module graph without connecting anywhere (OpenAPI generation). */
  preview?: boolean;
  /** Modules booted beside AppModule (tests mount probe controllers this way). */
  extraModules?: Array<Type<unknown> | DynamicModule>;
  /**
   * Where the logs go instead of stdout (tests read them). The logger is built once per process
   * (nestjs-pino), so only the first app of a process takes it.
   */
  logDestination?: DestinationStream;
}

function rootModule(extraModules: CreateAppOptions['extraModules'] = []): Type<unknown> | DynamicModule {
  return extraModules.length === 0 ? AppModule : { module: class TestRootModule {}, imports: [AppModule, ...extraModules] };
}

/** Creates the configured application (not yet listening). Shared by main.ts, tests, benchmarks and the OpenAPI script. */
export async function createApp(options: CreateAppOptions = {}): Promise<NestFastifyApplication> {
  const config = loadConfig();
  if (!options.preview) {
    await ensureDatabase(config.database.url);
    if (config.database.migrationsRun) await runMigrations(config.database.url);
  }
  const adapter = new FastifyAdapter({
    // Every body parser (JSON, form, text) reads up to this; uploads are streamed separately.
    bodyLimit: config.http.bodyLimitBytes,
    trustProxy: config.http.trustProxy,
    routerOptions: { maxParamLength: 500 },
    return503OnClosing: true,
    genReqId: assignRequestId,
    frameworkErrors: answerFrameworkError,
  });
  const extraModules = [...(options.extraModules ?? []), ...(options.logDestination ? [logDestinationModule(options.logDestination)] : [])];
  const app = await NestFactory.create<NestFastifyApplication>(rootModule(extraModules), adapter, {
    bufferLogs: true,
    preview: options.preview,
    abortOnError: false,
    // The WhatsApp webhook signature is over the raw bytes.
    rawBody: true,
  });
  if (!options.preview) {
    app.useLogger(new WiringAtDebugLogger(app.get(Logger)));
    // Before any route is added: each route gets its own latency observer and request-line writer.
    registerHttpMetrics(app);
    registerRequestLog(app, rootLogger());
  }
  app.useGlobalPipes(new CaseInsensitiveKeysPipe(), createValidationPipe());
  // Upload routes read multipart bodies as streams (src/support).
  await app.register(fastifyMultipart, MULTIPART_OPTIONS);
  echoRequestId(app);
  answerOversizedBodies(app, config.http.bodyLimitBytes);
  refuseUnsafeInput(app);
  enableCors(app, config.corsOrigins);
  registerLiveness(app);
  // Preview builds the module graph only: no service to answer with.
  if (!options.preview) registerWhatsAppWebhookRoute(app);
  closeConnectionsWhenClosing(app);
  if (!options.preview) await registerQueueDashboard(app, config);
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: 'docs-json',
    customSiteTitle: 'Messaging API',
    swaggerOptions: { persistAuthorization: true },
    customJsStr: FOCUS_CLIENT_CREDENTIALS_ON_AUTHORIZE,
  });
  return app;
}

/** The pino logger nestjs-pino built (app.get(Logger) builds it): the request lines go to it. */
function rootLogger(): NonNullable<typeof PinoLogger.root> {
  if (!PinoLogger.root) throw new Error('The pino logger is not built yet');
  return PinoLogger.root;
}

/**
 * Keep-alive sockets that finish a response while the server closes are closed right after it,
 * so close() waits for in-flight requests but not for idle keep-alive clients.
 */
function closeConnectionsWhenClosing(app: NestFastifyApplication): void {
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('preClose', (done) => {
    fastify.server.keepAliveTimeout = 1;
    done();
  });
}

/** Boots by APP_ROLE: `api` serves HTTP only, `worker` processes queues only, `all` both. */
export async function startApp(): Promise<NestFastifyApplication> {
  const config = loadConfig();
  const app = await createApp();
  if (config.runsApi) {
    await app.listen({ port: config.http.port, host: config.http.host });
    const url = listeningUrl(config.http.host, (app.getHttpServer().address() as AddressInfo).port);
    new NestLogger('Bootstrap').log(apiStartedMessage(url, config.role));
    // Last, below every start line, and on stdout as it is: log redaction would (rightly) hide the secret.
    const demo = app.get(DemoSeeder).takeCreatedCredentials();
    if (demo) process.stdout.write(demoCredentialsText(demo, url));
  } else {
    await app.init();
    new NestLogger('Bootstrap').log(`Worker started, role=${config.role}`);
  }
  closeOnSignals(app, config.http.shutdownGraceMs);
  return app;
}

/**
 * SIGTERM/SIGINT: stop accepting connections, let in-flight requests and active jobs finish
 * (Fastify's and Bull's close), close the database and Redis, exit 0. Past the grace period, exit 1.
 */
function closeOnSignals(app: NestFastifyApplication, graceMs: number): void {
  let closing = false;
  const logger = new NestLogger('Shutdown');
  const onSignal = (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    logger.log(`${signal} received: finishing in-flight work`);
    setTimeout(() => {
      logger.error(`Still busy after ${graceMs} ms: exiting anyway`);
      process.exit(1);
    }, graceMs).unref();
    app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error(err);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}
