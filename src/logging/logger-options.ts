import { RequestMethod } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import type { Params } from 'nestjs-pino';
import type { AppConfig } from '../config/app-config.js';

import { requestIdOf } from './request-id.js';

/** Paths whose values never reach the log. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["idempotency-key"]',
  'req.headers["x-twilio-signature"]',
  'req.headers["x-hub-signature-256"]',
  'res.headers["set-cookie"]',
  '*.client_secret',
  '*.clientSecret',
  '*.access_token',
  '*.accessToken',
  '*.authToken',
  '*.appSecret',
  '*.verifyToken',
  '*.webhookSecret',
  '*.password',
];

/** Structured JSON logs, credentials redacted, each line of a request carrying its request id. */
export function loggerOptions(config: AppConfig): Params {
  return {
    // Probes and scrapes are frequent and uninteresting: no per-request logger for them.
    exclude: [
      { method: RequestMethod.ALL, path: 'health/*path' },
      { method: RequestMethod.ALL, path: 'metrics' },
    ],
    pinoHttp: {
      level: config.logLevel,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      // Fastify assigned the id (see request-id.ts); the log lines carry the same one.
      genReqId: (req: IncomingMessage) => req.id ?? requestIdOf(req),
      autoLogging: true,
      customProps: () => ({ role: config.role }),
      ...(config.logPretty ? prettyTransport() : {}),
    },
  };
}

/**
 * pino-pretty as a transport (a worker thread), for `npm start`: one readable line per entry, the Nest
 * context in brackets, requests as `GET /path → 200 in 12 ms`. pino-pretty is a devDependency: where
 * it is not installed (a production image), the logs stay JSON instead of failing the start.
 */
export function prettyTransport(): { transport?: { target: string; options: Record<string, unknown> } } {
  try {
    require.resolve('pino-pretty');
  } catch {
    process.stderr.write('LOG_PRETTY=true but pino-pretty is not installed (a devDependency): logging JSON\n');
    return {};
  }
  return {
    transport: {
      target: 'pino-pretty',
      options: {
        colorize: process.stdout.isTTY === true,
        translateTime: 'SYS:HH:MM:ss.l',
        ignore: 'pid,hostname,role,context,req,res,responseTime',
        messageFormat:
          '{if context}[{context}] {end}{msg}{if req} {req.method} {req.url}{end}{if res} → {res.statusCode} in {responseTime} ms{end}',
        singleLine: true,
      },
    },
  };
}
