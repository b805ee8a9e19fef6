import { RequestMethod } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import type { DestinationStream } from 'pino';
import type { Params } from 'nestjs-pino';
import type { PrettyOptions } from 'pino-pretty';
import type { AppConfig } from '../config/app-config.js';
import { requestIdOf } from './request-id.js';
import { prettyRequestLine, REQUEST_LINE_FIELDS } from './request-log.hook.js';

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

/**
 * Structured JSON logs (readable ones with LOG_PRETTY), credentials redacted. The line per request is
 * written by a Fastify hook (request-log.hook.ts), which knows the route pattern and the workspace;
 * pino-http's own line is off. `destination` replaces stdout (the e2e tests read the log from it).
 */
export function loggerOptions(config: AppConfig, destination?: DestinationStream): Params {
  const options = {
    level: config.logLevel,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    // Fastify assigned the id (see request-id.ts); pino-http's request logger reuses it.
    genReqId: (req: IncomingMessage) => req.id ?? requestIdOf(req),
    autoLogging: false,
    customProps: () => ({ role: config.role }),
  };
  const stream = destination ?? (config.logPretty ? prettyStream() : undefined);
  return {
    exclude: [
      { method: RequestMethod.ALL, path: 'health/*path' },
      { method: RequestMethod.ALL, path: 'metrics' },
    ],
    pinoHttp: stream ? [options, stream] : options,
  };
}

/**
 * pino-pretty in this thread, writing synchronously, for `npm start`: one readable line per entry, the
 * Nest context in brackets, requests as `GET /v1/contacts/01… → 200 in 3.1 ms …`. Synchronous so that
 * what is printed after a log line (the demo credentials) really comes after it. pino-pretty is a
 * devDependency: where it is not installed (a production image), the logs stay JSON.
 */
export function prettyStream(): DestinationStream | undefined {
  let pretty: typeof import('pino-pretty');
  try {
    // A require, not an import: it must be able to fail where the devDependency is absent.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    pretty = require('pino-pretty') as typeof import('pino-pretty');
  } catch {
    process.stderr.write('LOG_PRETTY=true but pino-pretty is not installed (a devDependency): logging JSON\n');
    return undefined;
  }
  return pretty.build(prettyOptions(process.stdout.isTTY === true));
}

export function prettyOptions(colorize: boolean): PrettyOptions {
  return {
    colorize,
    sync: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: ['pid', 'hostname', 'role', 'context', ...REQUEST_LINE_FIELDS].join(','),
    messageFormat: (log, messageKey) => {
      const context = typeof log.context === 'string' ? `[${log.context}] ` : '';
      return `${context}${prettyRequestLine(log) ?? String(log[messageKey] ?? '')}`;
    },
    singleLine: true,
  };
}
