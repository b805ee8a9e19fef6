import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import type { Options } from 'pino-http';
import { AppConfig } from '../../src/config/app-config.js';
import { validateEnv } from '../../src/config/env.schema.js';
import { loggerOptions } from '../../src/logging/logger-options.js';

const pinoHttpOf = (env: Record<string, string>) =>
  loggerOptions(new AppConfig(validateEnv({ JWT_SECRET: 'x'.repeat(32), ...env }))).pinoHttp as Options;

describe('log format', () => {
  it('writes JSON by default (production, the Docker image): no transport, so no devDependency is loaded', () => {
    assert.equal(pinoHttpOf({}).transport, undefined);
    assert.equal(
      pinoHttpOf({ NODE_ENV: 'production', ENCRYPTION_KEY: randomBytes(32).toString('hex'), JWT_SECRET: randomBytes(32).toString('hex') })
        .transport,
      undefined,
    );
  });

  it('writes pino-pretty lines with LOG_PRETTY=true (what npm start sets in development)', () => {
    const transport = pinoHttpOf({ LOG_PRETTY: 'true' }).transport as { target: string; options: Record<string, unknown> };
    assert.equal(transport.target, 'pino-pretty');
    assert.equal(transport.options.singleLine, true);
    assert.match(String(transport.options.messageFormat), /\{context\}/);
  });
});
