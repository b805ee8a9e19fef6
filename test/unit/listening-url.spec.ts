import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppConfig } from '../../src/config/app-config.js';
import { validateEnv } from '../../src/config/env.schema.js';
import { apiStartedMessage, listeningUrl } from '../../src/common/http/listening-url.js';

const urlFor = (env: Record<string, string>) => {
  const config = new AppConfig(validateEnv({ JWT_SECRET: 'x'.repeat(32), ...env }));
  return listeningUrl(config.http.host, config.http.port);
};

describe('the address the start names', () => {
  it('names the port of PORT, and localhost for the default host (all interfaces)', () => {
    assert.equal(urlFor({ PORT: '3010' }), 'http://localhost:3010');
    assert.equal(urlFor({ PORT: '3010', HOST: '::' }), 'http://localhost:3010');
  });

  it('names the host of HOST, an IPv6 address in brackets', () => {
    assert.equal(urlFor({ PORT: '3010', HOST: '127.0.0.1' }), 'http://127.0.0.1:3010');
    assert.equal(urlFor({ PORT: '8080', HOST: '::1' }), 'http://[::1]:8080');
  });

  it('is not PUBLIC_BASE_URL, which names where the outside reaches the service', () => {
    assert.equal(urlFor({ PORT: '3010', PUBLIC_BASE_URL: 'https://api.example.com' }), 'http://localhost:3010');
  });

  it('names the API and its Swagger UI', () => {
    assert.equal(
      apiStartedMessage('http://localhost:3010', 'all'),
      'API on http://localhost:3010, Swagger UI at http://localhost:3010/docs, role=all',
    );
  });
});
