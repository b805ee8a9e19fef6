import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import type { Options } from 'pino-http';
import { prettyFactory } from 'pino-pretty';
import { AppConfig } from '../../src/config/app-config.js';
import { validateEnv } from '../../src/config/env.schema.js';
import { loggerOptions, prettyOptions } from '../../src/logging/logger-options.js';
import { loggableUrl, REQUEST_LINE_MESSAGE } from '../../src/logging/request-log.hook.js';

const pinoHttpOf = (env: Record<string, string>) =>
  loggerOptions(new AppConfig(validateEnv({ JWT_SECRET: 'x'.repeat(32), ...env }))).pinoHttp as Options | [Options, NodeJS.WritableStream];

describe('log format', () => {
  it('writes JSON to stdout by default (production, the Docker image): no stream of its own, so no devDependency is loaded', () => {
    const environments: Array<Record<string, string>> = [
      {},
      { NODE_ENV: 'production', ENCRYPTION_KEY: randomBytes(32).toString('hex'), JWT_SECRET: randomBytes(32).toString('hex') },
    ];
    for (const env of environments) {
      const pinoHttp = pinoHttpOf(env);
      assert.equal(Array.isArray(pinoHttp), false);
      assert.equal((pinoHttp as Options).transport, undefined);
    }
  });

  it('writes pino-pretty lines with LOG_PRETTY=true (what npm start sets in development), synchronously in order', () => {
    const pinoHttp = pinoHttpOf({ LOG_PRETTY: 'true' });
    assert.ok(Array.isArray(pinoHttp));
    assert.equal(typeof pinoHttp[1].write, 'function');
    assert.equal(prettyOptions(false).sync, true);
  });

  it('leaves the line per request to the Fastify hook (pino-http knows neither the route pattern nor the workspace)', () => {
    assert.equal((pinoHttpOf({}) as Options).autoLogging, false);
  });

  it('shows a request line readably: method, URL, status, duration, route, workspace and request id', () => {
    const pretty = prettyFactory(prettyOptions(false));
    const line = pretty({
      level: 30,
      time: 0,
      msg: REQUEST_LINE_MESSAGE,
      reqId: 'req-1',
      method: 'GET',
      route: '/v1/contacts/:id',
      url: '/v1/contacts/c-1',
      statusCode: 200,
      responseTime: 3.1,
      workspaceId: 'ws-1',
    });
    assert.match(line, /INFO: GET \/v1\/contacts\/c-1 → 200 in 3\.1 ms \(\/v1\/contacts\/:id\) workspace ws-1 request req-1\n$/);
    assert.match(pretty({ level: 30, time: 0, context: 'DemoSeed', msg: 'Seeded' }), /INFO: \[DemoSeed\] Seeded\n$/);
  });

  it('censors secrets in a logged query string', () => {
    assert.equal(
      loggableUrl('/webhooks/whatsapp?hub.mode=subscribe&hub.verify_token=abc&hub.challenge=1'),
      '/webhooks/whatsapp?hub.mode=subscribe&hub.verify_token=[redacted]&hub.challenge=1',
    );
    assert.equal(loggableUrl('/v1/contacts?skipCount=10'), '/v1/contacts?skipCount=10');
  });
});
