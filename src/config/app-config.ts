import { availableParallelism } from 'node:os';
import { createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { decodeEncryptionKey, type AppRole, type EnvSchema } from './env.schema.js';
import { parseDuration, parseDurationList } from '../common/time/duration.js';

export interface ObjectStorageConfig {
  bucket: string;
  /** Unset: AWS S3 of `region`. */
  endpoint: string | undefined;
  region: string;
  /** Unset: the AWS SDK's default credential chain. */
  credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
  forcePathStyle: boolean;
  keyPrefix: string;
}

/** Typed, validated configuration, grouped by concern. Built once at boot from the environment. */
export class AppConfig {
  readonly env: string;
  readonly role: AppRole;
  readonly http: {
    port: number;
    host: string;
    publicBaseUrl: string;
    shutdownGraceMs: number;
    bodyLimitBytes: number;
    /** Fastify's `trustProxy`: whom to believe about the client address (X-Forwarded-For). */
    trustProxy: boolean | string[];
  };
  /** Origins allowed cross-origin access: every one (`*`) or those listed (none when empty). */
  readonly corsOrigins: '*' | string[];
  readonly database: { url: string; migrationsRun: boolean; poolSize: number };
  readonly redis: { url: string; keyPrefix: string };
  /**
   * `jwtKey` is the secret as a KeyObject: given a string, jsonwebtoken first tries to read it as a
   * PEM public key on every verification, which cost a third of the API's busy time.
   */
  readonly auth: { jwtSecret: string; jwtKey: KeyObject; jwtExpiresInSeconds: number; apiScope: string };
  readonly admin: { apiKey: string | undefined };
  readonly encryptionKey: Buffer | undefined;
  readonly storageDir: string;
  /** The S3-compatible bucket media live in, or null for local disk under `storageDir`. */
  readonly objectStorage: ObjectStorageConfig | null;
  readonly media: { ffmpegPath: string | undefined; ffmpegTimeoutMs: number; ffmpegMaxConcurrency: number };
  readonly seedDemo: boolean;
  readonly logLevel: string;
  /** pino-pretty lines instead of JSON (development, `npm start`). */
  readonly logPretty: boolean;
  readonly webhooks: { allowPrivateNetworks: boolean; retryScheduleMs: number[]; disableAfterMs: number };
  readonly rateLimits: {
    requestsPerMinute: number;
    whatsappSendsPerSecond: number;
    ivrCallsPerSecond: number;
    tokenRequestsPerMinute: number;
    unauthenticatedRequestsPerMinute: number;
  };
  readonly outbox: { pollIntervalMs: number; recoverAfterMs: number };
  readonly queues: { lockDurationMs: number; completedJobRetentionMs: number };
  /** How long finished rows of the growing tables are kept, and how the pruning job runs. */
  readonly retention: { outboxMs: number; webhookDeliveriesMs: number; sandboxMessagesMs: number; intervalMs: number; batchSize: number };
  readonly whatsapp: {
    graphUrl: string;
    mediaDownloadAttempts: number;
    pairRateIntervalMs: number;
    intakeLeaseMs: number;
    intakeIdlePollMs: number;
  };
  readonly voice: {
    twilioApiUrl: string;
    inboundGreeting: string;
    staleCallMinutes: number;
    recordingRetentionMs: number;
    callIntelligenceWaitMs: number;
    whatsAppCallHostAddresses: string[];
    /** The WhatsApp call media thread's niceness (see WHATSAPP_CALL_MEDIA_NICENESS). */
    whatsAppCallMediaNiceness: number;
    whatsAppCallConnectTimeoutMs: number;
    whatsAppCallRingTimeoutMs: number;
  };

  constructor(env: EnvSchema) {
    this.env = env.NODE_ENV;
    this.role = env.APP_ROLE;
    this.http = {
      port: env.PORT,
      host: env.HOST,
      publicBaseUrl: env.PUBLIC_BASE_URL.replace(/\/+$/, ''),
      shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
      bodyLimitBytes: env.HTTP_BODY_LIMIT_MB * 1024 * 1024,
      trustProxy: parseTrustProxy(env.TRUST_PROXY),
    };
    this.corsOrigins = parseOrigins(env.CORS_ORIGINS);
    this.database = { url: env.DATABASE_URL, migrationsRun: env.MIGRATIONS_RUN, poolSize: env.DATABASE_POOL_SIZE };
    this.redis = { url: env.REDIS_URL, keyPrefix: env.REDIS_KEY_PREFIX };
    let jwtSecret = env.JWT_SECRET;
    if (!jwtSecret) {
      jwtSecret = randomBytes(32).toString('base64url');
      new Logger('Config').warn(
        'JWT_SECRET is not set: using a random secret for this process; tokens will not survive a restart or work across replicas',
      );
    }
    this.auth = {
      jwtSecret,
      jwtKey: createSecretKey(Buffer.from(jwtSecret, 'utf8')),
      jwtExpiresInSeconds: env.JWT_EXPIRES_IN,
      apiScope: env.API_SCOPE,
    };
    this.admin = { apiKey: env.ADMIN_API_KEY };
    this.encryptionKey = env.ENCRYPTION_KEY ? decodeEncryptionKey(env.ENCRYPTION_KEY) : undefined;
    this.storageDir = env.STORAGE_DIR;
    this.objectStorage = env.S3_BUCKET
      ? {
          bucket: env.S3_BUCKET,
          endpoint: env.S3_ENDPOINT?.replace(/\/+$/, ''),
          region: env.S3_REGION,
          credentials:
            env.S3_ACCESS_KEY_ID && env.S3_SECRET_ACCESS_KEY
              ? { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY }
              : undefined,
          forcePathStyle: env.S3_FORCE_PATH_STYLE,
          keyPrefix: env.S3_KEY_PREFIX,
        }
      : null;
    this.media = {
      ffmpegPath: env.FFMPEG_PATH,
      ffmpegTimeoutMs: env.FFMPEG_TIMEOUT_MS,
      ffmpegMaxConcurrency: env.FFMPEG_MAX_CONCURRENCY ?? availableParallelism(),
    };
    this.seedDemo = env.SEED_DEMO ?? env.NODE_ENV !== 'production';
    this.logLevel = env.LOG_LEVEL;
    this.logPretty = env.LOG_PRETTY;
    this.webhooks = {
      allowPrivateNetworks: env.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
      retryScheduleMs: parseDurationList(env.WEBHOOK_RETRY_SCHEDULE),
      disableAfterMs: parseDurationList(env.WEBHOOK_DISABLE_AFTER)[0],
    };
    this.rateLimits = {
      requestsPerMinute: env.RATE_LIMIT_REQUESTS_PER_MINUTE,
      whatsappSendsPerSecond: env.RATE_LIMIT_WHATSAPP_SENDS_PER_SECOND,
      ivrCallsPerSecond: env.RATE_LIMIT_IVR_CALLS_PER_SECOND,
      tokenRequestsPerMinute: env.RATE_LIMIT_TOKEN_REQUESTS_PER_MINUTE,
      unauthenticatedRequestsPerMinute: env.RATE_LIMIT_UNAUTHENTICATED_REQUESTS_PER_MINUTE,
    };
    this.outbox = { pollIntervalMs: env.OUTBOX_POLL_INTERVAL_MS, recoverAfterMs: env.OUTBOX_RECOVER_AFTER_MS };
    this.queues = {
      lockDurationMs: env.QUEUE_LOCK_DURATION_MS,
      // Never under twice the relay's recovery horizon: a job id it pushes again must still be known to Bull if the job finished.
      completedJobRetentionMs: Math.max(parseDuration(env.QUEUE_COMPLETED_JOB_RETENTION), 2 * env.OUTBOX_RECOVER_AFTER_MS),
    };
    this.retention = {
      outboxMs: parseDuration(env.OUTBOX_RETENTION),
      webhookDeliveriesMs: parseDuration(env.WEBHOOK_DELIVERY_RETENTION),
      sandboxMessagesMs: parseDuration(env.SANDBOX_MESSAGE_RETENTION),
      intervalMs: parseDuration(env.RETENTION_INTERVAL),
      batchSize: env.RETENTION_BATCH_SIZE,
    };
    this.whatsapp = {
      graphUrl: env.WHATSAPP_GRAPH_URL.replace(/\/+$/, ''),
      mediaDownloadAttempts: env.WHATSAPP_MEDIA_DOWNLOAD_ATTEMPTS,
      pairRateIntervalMs: env.WHATSAPP_PAIR_RATE_INTERVAL_MS,
      intakeLeaseMs: env.WHATSAPP_INTAKE_LEASE_MS,
      intakeIdlePollMs: env.WHATSAPP_INTAKE_IDLE_POLL_MS,
    };
    this.voice = {
      twilioApiUrl: env.TWILIO_API_URL.replace(/\/+$/, ''),
      inboundGreeting: env.INBOUND_CALL_GREETING,
      staleCallMinutes: env.IVR_STALE_CALL_MINUTES,
      recordingRetentionMs: parseDuration(env.RECORDING_RETENTION),
      callIntelligenceWaitMs: parseDuration(env.CALL_INTELLIGENCE_WAIT),
      whatsAppCallHostAddresses: env.WHATSAPP_CALL_HOST_ADDRESSES.split(',').filter(Boolean),
      whatsAppCallConnectTimeoutMs: env.WHATSAPP_CALL_CONNECT_TIMEOUT_MS,
      whatsAppCallRingTimeoutMs: env.WHATSAPP_CALL_RING_TIMEOUT_MS,
      whatsAppCallMediaNiceness: env.WHATSAPP_CALL_MEDIA_NICENESS,
    };
  }

  get runsApi(): boolean {
    return this.role === 'api' || this.role === 'all';
  }

  get runsWorker(): boolean {
    return this.role === 'worker' || this.role === 'all';
  }
}

function parseOrigins(value: string): '*' | string[] {
  if (value.trim() === '*') return '*';
  return value
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '')
    .map((origin) => new URL(origin).origin);
}

function parseTrustProxy(value: string): boolean | string[] {
  const trimmed = value.trim();
  if (trimmed === 'true' || trimmed === 'false') return trimmed === 'true';
  return trimmed.split(',').map((item) => item.trim());
}
