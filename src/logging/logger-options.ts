import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Params } from 'nestjs-pino';
import type { AppConfig } from '../config/app-config.js';

export const REQUEST_ID_HEADER = 'x-request-id';

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

/** Structured JSON logs; each request gets an id (taken from `X-Request-Id` when sent) echoed in the response. */
export function loggerOptions(config: AppConfig): Params {
  return {
    pinoHttp: {
      level: config.logLevel,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      genReqId: (req: IncomingMessage, res: ServerResponse) => {
        const sent = req.headers[REQUEST_ID_HEADER];
        const id = typeof sent === 'string' && /^[\w.:-]{1,128}$/.test(sent) ? sent : randomUUID();
        res.setHeader('X-Request-Id', id);
        return id;
      },
      autoLogging: { ignore: (req: IncomingMessage) => req.url === '/health/live' || req.url === '/metrics' },
      customProps: () => ({ role: config.role }),
    },
  };
}
