import { plainToInstance, Transform } from 'class-transformer';
import ipaddr from 'ipaddr.js';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  Min,
  MinLength,
  ValidateBy,
  validateSync,
} from 'class-validator';
import { DURATION_PATTERN, parseDuration } from '../common/time/duration.js';
import { DEFAULT_MEDIA_THREAD_NICENESS } from '../voice/webrtc/media-thread.js';
import { productionSecretProblems } from './production-secrets.js';

const toBoolean = ({ value }: { value: unknown }) => {
  if (typeof value !== 'string') return value;
  const v = value.trim().toLowerCase();
  if (['true', '1', 'yes'].includes(v)) return true;
  if (['false', '0', 'no', ''].includes(v)) return false;
  return value;
};
const toInt = ({ value }: { value: unknown }) => (typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value);

/** `https://app.example.com`: scheme, host and port only, as a browser sends it in `Origin`. */
function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value.toLowerCase();
  } catch {
    return false;
  }
}
/** `true`, `false`, or a comma-separated list of proxy addresses or CIDR ranges. */
const isTrustProxy = (value: unknown) =>
  typeof value === 'string' && (/^(true|false)$/.test(value.trim()) || value.split(',').every((item) => isAddressOrRange(item.trim())));
/** `10.0.0.1`, `::1`, `10.0.0.0/8` (not the legacy IPv4 forms `10.1` or `167772161`). */
function isAddressOrRange(value: string): boolean {
  const [address, bits] = value.split('/', 2);
  const isAddress = ipaddr.IPv4.isValidFourPartDecimal(address) || ipaddr.IPv6.isValid(address);
  return isAddress && (bits === undefined || ipaddr.isValidCIDR(value));
}
/** A duration like `30s`, `10m`, `7d`, at least one second. */
function IsDuration() {
  return ValidateBy({
    name: 'isDuration',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && DURATION_PATTERN.test(value.trim()) && parseDuration(value) >= 1000,
      defaultMessage: () => 'must be a duration of at least 1s like 30s, 10m, 12h or 7d',
    },
  });
}
const isOriginList = (value: unknown) =>
  typeof value === 'string' && (value.trim() === '' || value.trim() === '*' || value.split(',').every((item) => isOrigin(item.trim())));

export const APP_ROLES = ['api', 'worker', 'all'] as const;
export type AppRole = (typeof APP_ROLES)[number];

/**
 * Every environment variable the service reads, with its default.
 * Defaults make `npm start` work against PostgreSQL and Redis on localhost.
 */
export class EnvSchema {
  @IsOptional() @IsIn(['development', 'production', 'test']) NODE_ENV: string = 'development';
  @Transform(toInt) @IsInt() @Min(0) @Max(65535) PORT = 3000;
  @IsString() @IsOptional() HOST = '0.0.0.0';
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  PUBLIC_BASE_URL = 'http://localhost:3000';
  /** Largest request body read into memory (JSON, form); larger is a 413. Uploads stream and have their own limits. */
  @Transform(toInt) @IsInt() @Min(1) @Max(1024) HTTP_BODY_LIMIT_MB = 20;
  /**
   * Whether the client address is taken from X-Forwarded-For (per-address rate limits, logs): only
   * behind a proxy that sets it. `true` (any peer), or the proxies' addresses/CIDRs (better).
   */
  @ValidateBy({
    name: 'isTrustProxy',
    validator: {
      validate: isTrustProxy,
      defaultMessage: () => 'must be true, false, or a comma-separated list of addresses or CIDR ranges',
    },
  })
  TRUST_PROXY = 'false';
  /** Browser origins allowed to call the API: `*`, or a comma-separated list; blank allows none. */
  @ValidateBy({
    name: 'isOriginList',
    validator: {
      validate: isOriginList,
      defaultMessage: () => 'must be * or a comma-separated list of origins like https://app.example.com',
    },
  })
  CORS_ORIGINS = '';
  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'must be a postgres:// URL' })
  DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/messaging';
  /** Connections per process; a worker running many calls at once waits less with more. */
  @Transform(toInt) @IsInt() @Min(1) @Max(500) DATABASE_POOL_SIZE = 20;
  @Matches(/^rediss?:\/\/.+/, { message: 'must be a redis:// URL' })
  REDIS_URL = 'redis://127.0.0.1:6379';
  /** Prefix of every Redis key (queues, rate limits); lets several deployments or test runs share one Redis. */
  @Matches(/^[A-Za-z0-9:_-]{1,64}$/) REDIS_KEY_PREFIX = 'msg';
  @IsIn(APP_ROLES) APP_ROLE: AppRole = 'all';
  @Transform(toBoolean) @IsBoolean() MIGRATIONS_RUN = true;
  @Transform(toBoolean) @IsBoolean() @IsOptional() SEED_DEMO?: boolean;
  @IsOptional() @IsString() @MinLength(32, { message: 'must be at least 32 characters' }) JWT_SECRET?: string;
  @Transform(toInt) @IsInt() @Min(60) @Max(86400) JWT_EXPIRES_IN = 3600;
  @Matches(/^[\w.:-]{1,100}$/) API_SCOPE = 'messaging_api';
  @IsOptional() @IsString() @MinLength(16, { message: 'must be at least 16 characters' }) ADMIN_API_KEY?: string;
  /** 32 bytes, base64 or hex: encrypts channel credentials and webhook secrets at rest. */
  @IsOptional()
  @Matches(/^([A-Fa-f0-9]{64}|[A-Za-z0-9+/]{43}=)$/, { message: 'must be 32 bytes as 64 hex digits or base64' })
  ENCRYPTION_KEY?: string;
  @IsString() STORAGE_DIR = './storage';
  /**
   * Object storage: setting S3_BUCKET keeps media in that S3-compatible bucket instead of under
   * STORAGE_DIR (which then holds only temp files). The bucket must exist.
   */
  @IsOptional()
  @Matches(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, { message: 'must be an S3 bucket name (3-63 lowercase letters, digits, dots, hyphens)' })
  S3_BUCKET?: string;
  /** An S3-compatible service's URL (MinIO, Ceph, R2, ...); unset for AWS S3 itself. */
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  S3_ENDPOINT?: string;
  @Matches(/^[a-z0-9-]{1,32}$/, { message: 'must be a region name like us-east-1' }) S3_REGION = 'us-east-1';
  /** Both or neither; neither uses the AWS SDK's default credentials (AWS_* variables, instance or task role). */
  @IsOptional() @IsString() S3_ACCESS_KEY_ID?: string;
  @IsOptional() @IsString() S3_SECRET_ACCESS_KEY?: string;
  /** `https://endpoint/bucket/key` instead of `https://bucket.endpoint/key` (most self-hosted services need it). */
  @Transform(toBoolean) @IsBoolean() S3_FORCE_PATH_STYLE = false;
  /** Prepended to every object key, so the media can share a bucket with other data. */
  @Matches(/^([A-Za-z0-9_-][A-Za-z0-9._-]*\/)*$/, { message: 'must be path segments ending in / like media/' })
  S3_KEY_PREFIX = 'media/';
  /** An ffmpeg binary to use instead of the one shipped in the npm package @ffmpeg-installer/ffmpeg. */
  @IsOptional() @IsString() FFMPEG_PATH?: string;
  /** A conversion or probe running longer is killed. */
  @Transform(toInt) @IsInt() @Min(1000) @Max(600000) FFMPEG_TIMEOUT_MS = 60000;
  /** ffmpeg runs at once per process (each takes a core while it converts); default: the cores this process may use. */
  @IsOptional() @Transform(toInt) @IsInt() @Min(1) @Max(256) FFMPEG_MAX_CONCURRENCY?: number;
  /** Base URL of the WhatsApp Cloud API (Graph API, with its version). */
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  WHATSAPP_GRAPH_URL = 'https://graph.facebook.com/v25.0';
  /** Tries at fetching an inbound message's file from the Graph API before its webhook goes out without it. */
  @Transform(toInt) @IsInt() @Min(1) @Max(20) WHATSAPP_MEDIA_DOWNLOAD_ATTEMPTS = 8;
  /** Meta's pair rate (API.md §13): the least time between two messages to one recipient on one number; 0 turns it off (tests of other features). */
  @Transform(toInt) @IsInt() @Min(0) @Max(60_000) WHATSAPP_PAIR_RATE_INTERVAL_MS = 6000;
  /** How long a worker's claim on received notifications holds: a worker that died has them claimed again after this. */
  @Transform(toInt) @IsInt() @Min(1000) @Max(3_600_000) WHATSAPP_INTAKE_LEASE_MS = 120_000;
  /** How often an idle worker looks for received notifications on its own; a write wakes every worker at once over Redis, so this only covers a lost wake. */
  @Transform(toInt) @IsInt() @Min(10) @Max(600_000) WHATSAPP_INTAKE_IDLE_POLL_MS = 1000;
  /** Base URL of the Twilio-compatible voice API (Twilio, SignalWire, Telnyx TeXML). */
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  TWILIO_API_URL = 'https://api.twilio.com';
  /** WhatsApp calls (API.md §15): comma-separated addresses the worker's WebRTC peers offer and use as ICE host candidates (a public address behind 1:1 NAT; 127.0.0.1 in tests); empty: the machine's own. */
  @Matches(/^[0-9a-fA-F.:,]*$/, { message: 'must be a comma-separated list of IP addresses' }) WHATSAPP_CALL_HOST_ADDRESSES = '';
  /** How long ICE and DTLS may take once Meta's SDP answer is applied before the call ends Failed. */
  @Transform(toInt) @IsInt() @Min(500) @Max(120_000) WHATSAPP_CALL_CONNECT_TIMEOUT_MS = 10_000;
  /** How long a WhatsApp user's phone may ring before the call is terminated as not answered. */
  @Transform(toInt) @IsInt() @Min(1000) @Max(600_000) WHATSAPP_CALL_RING_TIMEOUT_MS = 60_000;
  /**
   * The niceness the worker's WhatsApp call media thread runs at (Linux; -20 highest, 19 lowest):
   * above the rest of the machine's work, so that its 20 ms packets leave on time on a busy machine.
   * Below 0 needs CAP_SYS_NICE (root has it) or an RLIMIT_NICE of 20 minus it (a container: `ulimits: nice: 30`).
   */
  @Transform(toInt) @IsInt() @Min(-20) @Max(19) WHATSAPP_CALL_MEDIA_NICENESS = DEFAULT_MEDIA_THREAD_NICENESS;
  /** An outbound call placed this long ago without a final report is settled by the sweeper. */
  @Transform(toInt) @IsInt() @Min(1) @Max(1440) IVR_STALE_CALL_MINUTES = 60;
  /** Recordings of calls (API.md §16) are deleted this long after they were stored. */
  @IsDuration() RECORDING_RETENTION = '90d';
  /** How long a recorded call's Call Webhook waits for its recording (and analysis) before it goes without. */
  @IsDuration() CALL_INTELLIGENCE_WAIT = '120s';
  /** Spoken to inbound callers before the service hangs up. */
  @IsString() @MinLength(1) INBOUND_CALL_GREETING = 'Thank you for calling. Nobody can take your call right now. Goodbye.';
  @Transform(toBoolean) @IsBoolean() WEBHOOK_ALLOW_PRIVATE_NETWORKS = false;
  @Matches(/^\d+(ms|s|m|h)(,\d+(ms|s|m|h))*$/, { message: 'must be a comma-separated list like 2m,4m,8m' })
  WEBHOOK_RETRY_SCHEDULE = '2m,4m,8m,16m,32m';
  /** A webhook endpoint with no successful attempt for this long while attempts failed is disabled (API.md §11.1). */
  @Matches(/^[1-9]\d*(ms|s|m|h|d)$/, { message: 'must be a duration like 5d, 12h or 30s' })
  WEBHOOK_DISABLE_AFTER = '5d';
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']) LOG_LEVEL = 'info';
  /**
   * Human-readable, coloured log lines (pino-pretty) instead of JSON. `npm start` turns it on outside
   * production; pino-pretty is a devDependency, so where it is not installed the logs stay JSON.
   */
  @Transform(toBoolean) @IsBoolean() LOG_PRETTY = false;
  @Transform(toInt) @IsInt() @Min(1) RATE_LIMIT_REQUESTS_PER_MINUTE = 600;
  @Transform(toInt) @IsInt() @Min(1) RATE_LIMIT_WHATSAPP_SENDS_PER_SECOND = 80;
  @Transform(toInt) @IsInt() @Min(1) RATE_LIMIT_IVR_CALLS_PER_SECOND = 10;
  @Transform(toInt) @IsInt() @Min(1) RATE_LIMIT_TOKEN_REQUESTS_PER_MINUTE = 20;
  /** Requests without a valid token (token requests included), per client address. */
  @Transform(toInt) @IsInt() @Min(1) RATE_LIMIT_UNAUTHENTICATED_REQUESTS_PER_MINUTE = 300;
  @Transform(toInt) @IsInt() @Min(50) @Max(60000) OUTBOX_POLL_INTERVAL_MS = 1000;
  /** How long a dispatched job may stay unfinished before the relay checks that Redis still has it. */
  @Transform(toInt) @IsInt() @Min(1000) OUTBOX_RECOVER_AFTER_MS = 300_000;
  @Transform(toInt) @IsInt() @Min(0) @Max(120000) SHUTDOWN_GRACE_MS = 10000;
  /** Bull's job lock: a job whose worker died is taken up again after about this long. */
  @Transform(toInt) @IsInt() @Min(1000) @Max(600000) QUEUE_LOCK_DURATION_MS = 30000;
  /** Finished outbox rows are deleted this long after they finished. */
  @IsDuration() OUTBOX_RETENTION = '7d';
  /** Webhook deliveries (the delivery log) are deleted this long after the event, once no attempt is pending. */
  @IsDuration() WEBHOOK_DELIVERY_RETENTION = '30d';
  /** What sandbox channels "sent" is deleted this long after it was sent. */
  @IsDuration() SANDBOX_MESSAGE_RETENTION = '7d';
  /** Bull keeps a finished job in Redis this long (at most 50,000 a queue; never under twice OUTBOX_RECOVER_AFTER_MS). */
  @IsDuration() QUEUE_COMPLETED_JOB_RETENTION = '24h';
  /** How often the pruning job runs. */
  @IsDuration() RETENTION_INTERVAL = '10m';
  /** Rows deleted per statement by the pruning job (each statement is its own short transaction). */
  @Transform(toInt) @IsInt() @Min(1) @Max(100_000) RETENTION_BATCH_SIZE = 1000;
}

/** Validates `process.env`; throws one error naming every bad variable. */
export function validateEnv(raw: Record<string, unknown>): EnvSchema {
  const defined = Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined && v !== ''));
  const env = plainToInstance(EnvSchema, defined, { exposeDefaultValues: true });
  const errors = validateSync(env, { skipMissingProperties: false });
  if (errors.length > 0) {
    const lines = errors.map((e) => `  ${e.property}=${JSON.stringify(e.value)}: ${Object.values(e.constraints ?? {}).join('; ')}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const objectStorageProblems = objectStorageConfigProblems(env);
  if (objectStorageProblems.length > 0) throw new Error(`Invalid configuration:\n${objectStorageProblems.join('\n')}`);
  if (env.NODE_ENV === 'production' && !env.JWT_SECRET) {
    throw new Error('Invalid configuration:\n  JWT_SECRET: required when NODE_ENV=production');
  }
  if (env.NODE_ENV === 'production' && !env.ENCRYPTION_KEY) {
    throw new Error('Invalid configuration:\n  ENCRYPTION_KEY: required when NODE_ENV=production');
  }
  if (env.NODE_ENV === 'production') {
    const secretProblems = productionSecretProblems({ ...env, encryptionKey: decodeEncryptionKey(env.ENCRYPTION_KEY!) });
    if (secretProblems.length > 0) throw new Error(`Invalid configuration:\n${secretProblems.join('\n')}`);
  }
  return env;
}

/** ENCRYPTION_KEY's 32 bytes, from 64 hex digits or base64 (validated above). */
export function decodeEncryptionKey(value: string): Buffer {
  return /^[A-Fa-f0-9]{64}$/.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
}

/** The S3 variables that only mean something together. */
function objectStorageConfigProblems(env: EnvSchema): string[] {
  const problems: string[] = [];
  if (!env.S3_BUCKET) {
    for (const name of ['S3_ENDPOINT', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'] as const) {
      if (env[name]) problems.push(`  ${name}: set, but S3_BUCKET is not (media stay on local disk without it)`);
    }
  } else if (!env.S3_ACCESS_KEY_ID !== !env.S3_SECRET_ACCESS_KEY) {
    problems.push('  S3_ACCESS_KEY_ID / S3_SECRET_ACCESS_KEY: set both, or neither for the default AWS credentials');
  }
  return problems;
}
