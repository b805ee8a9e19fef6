import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeWithApp } from '../support/describe-with-app.js';
import type { TestApp } from '../support/test-app.js';

const APP = 'https://app.example.com';
const ADMIN = 'https://admin.example.com';
const OTHER = 'https://evil.example.net';

const preflight = (t: TestApp, path: string, origin: string, method = 'POST') =>
  t.http.request('OPTIONS', path, {
    headers: {
      origin,
      'access-control-request-method': method,
      'access-control-request-headers': 'authorization,content-type,idempotency-key',
    },
  });

describeWithApp('CORS_ORIGINS: a list of origins', { env: { CORS_ORIGINS: `${APP}, ${ADMIN}` }, workspaces: 1 }, (fx) => {
  it('answers a preflight from a listed origin with 204 and what may be sent', async () => {
    for (const origin of [APP, ADMIN]) {
      const res = await preflight(fx.t, '/v1/whatsapp/service-account/sendText', origin);
      assert.equal(res.status, 204, res.text);
      assert.equal(res.headers.get('access-control-allow-origin'), origin);
      assert.equal(res.headers.get('access-control-allow-methods'), 'GET, HEAD, POST, PUT, DELETE');
      assert.equal(res.headers.get('access-control-allow-headers'), 'Authorization, Content-Type, Idempotency-Key, X-Request-Id');
      assert.equal(res.headers.get('access-control-max-age'), '600');
      assert.equal(res.headers.get('access-control-allow-credentials'), null, 'bearer tokens, no cookies');
      assert.match(res.headers.get('vary') ?? '', /Origin/);
    }
  });

  it('lets a listed origin read answers, errors included, and the rate limit, Retry-After and request id headers', async () => {
    const ok = await fx.a.api.get('/v1/workspaces/users', { origin: APP });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('access-control-allow-origin'), APP);
    assert.equal(
      ok.headers.get('access-control-expose-headers'),
      'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, X-Request-Id',
    );
    assert.ok(ok.headers.get('x-ratelimit-limit'));
    const anonymous = await fx.t.http.get('/v1/workspaces/users', { origin: APP });
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.headers.get('access-control-allow-origin'), APP);
  });

  it('refuses a preflight from any other origin with a 403 envelope, and gives it nothing to read', async () => {
    const res = await preflight(fx.t, '/v1/whatsapp/service-account/sendText', OTHER);
    assert.equal(res.status, 403, res.text);
    assert.equal(res.body.error.code, 'Cors:OriginNotAllowed');
    assert.equal(res.body.message, `Cross-origin requests from '${OTHER}' are not allowed.`);
    assert.equal(res.headers.get('access-control-allow-origin'), null);
    assert.equal(res.headers.get('access-control-allow-methods'), null);
    assert.ok(res.headers.get('x-request-id'));
    for (const headers of [{ origin: OTHER }, { origin: 'null' }, {}] as Array<Record<string, string>>) {
      const plain = await fx.a.api.get('/v1/workspaces/users', headers);
      assert.equal(plain.status, 200, 'a request is served as without CORS');
      assert.equal(plain.headers.get('access-control-allow-origin'), null, JSON.stringify(headers));
      assert.equal(plain.headers.get('access-control-expose-headers'), null);
    }
  });
});

describeWithApp('CORS_ORIGINS=*', { env: { CORS_ORIGINS: '*' }, workspaces: 0 }, (fx) => {
  it('answers every origin’s preflight and lets it read answers', async () => {
    const res = await preflight(fx.t, '/v1/contacts', OTHER, 'PUT');
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    const token = await fx.t.http.request('POST', '/connect/token', { body: 'grant_type=client_credentials', headers: { origin: OTHER } });
    assert.equal(token.status, 400);
    assert.equal(token.headers.get('access-control-allow-origin'), '*');
  });
});

describeWithApp('CORS_ORIGINS unset (no origin allowed)', { workspaces: 0 }, (fx) => {
  it('refuses every preflight with a 403 envelope; any other OPTIONS request is a 404 as on an unknown route', async () => {
    const refused = await preflight(fx.t, '/v1/contacts', APP, 'PUT');
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.body.error.code, 'Cors:OriginNotAllowed');
    assert.equal(refused.headers.get('access-control-allow-origin'), null);
    const plain = await fx.t.http.request('OPTIONS', '/v1/contacts');
    const unknown = await fx.t.http.get('/no-such-route');
    assert.equal(plain.status, 404, plain.text);
    assert.deepEqual(plain.body.error.code, unknown.body.error.code);
  });
});
