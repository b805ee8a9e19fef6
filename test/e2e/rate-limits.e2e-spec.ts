import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { it } from 'node:test';
import jwt from 'jsonwebtoken';
import { describeWithApp } from '../support/describe-with-app.js';
import { requestToken } from '../support/fixtures.js';
import { ADMIN_KEY } from '../support/test-app.js';

describeWithApp(
  'Rate limiting per workspace in Redis',
  { env: { RATE_LIMIT_REQUESTS_PER_MINUTE: '5', RATE_LIMIT_TOKEN_REQUESTS_PER_MINUTE: '3' } },
  (fx) => {
    it('reports the limit in the X-RateLimit headers and what remains on GET /v1/rate-limits', async () => {
      const first = await fx.a.api.get('/v1/workspaces/users');
      assert.equal(first.status, 200);
      assert.equal(first.headers.get('x-ratelimit-limit'), '5');
      assert.equal(first.headers.get('x-ratelimit-remaining'), '4');
      const reset = Number(first.headers.get('x-ratelimit-reset'));
      assert.ok(reset > 0 && reset <= 60, `reset ${reset}`);

      const limits = await fx.a.api.get('/v1/rate-limits');
      assert.equal(limits.status, 200);
      const requests = limits.body.find((l: { name: string }) => l.name === 'requests');
      assert.deepEqual(
        { limit: requests.limit, windowSeconds: requests.windowSeconds, remaining: requests.remaining },
        { limit: 5, windowSeconds: 60, remaining: 3 },
      );
      assert.deepEqual(limits.body.map((l: { name: string }) => l.name).sort(), ['ivr-calls', 'requests', 'whatsapp-sends']);
    });

    it('answers 429 with Retry-After and the envelope once the workspace is over its limit, without touching another workspace', async () => {
      let last = await fx.a.api.get('/v1/workspaces/users');
      for (let i = 1; i < 4; i++) last = await fx.a.api.get('/v1/workspaces/users');
      assert.equal(last.status, 429);
      assert.equal(last.body.statusCode, 429);
      assert.equal(last.body.error.code, 'RateLimit:Exceeded');
      const retryAfter = Number(last.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
      assert.equal(last.headers.get('x-ratelimit-remaining'), '0');

      const other = await fx.b.api.get('/v1/workspaces/users');
      assert.equal(other.status, 200, 'workspace B has its own budget');
    });

    it('limits token requests per client id', async () => {
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await requestToken(fx.t, fx.b.clientId, 'wrong-secret')).status);
      assert.deepEqual(statuses.slice(0, 2), [401, 401]);
      assert.equal(statuses[3], 429);
      const otherClient = await requestToken(fx.t, fx.a.clientId, fx.a.clientSecret);
      assert.equal(otherClient.status, 200, 'another client id is not affected');
    });
  },
);

const LIMIT = 4;

describeWithApp(
  'Rate limiting requests without a valid token, per client address',
  { env: { RATE_LIMIT_UNAUTHENTICATED_REQUESTS_PER_MINUTE: String(LIMIT), TRUST_PROXY: '127.0.0.1' }, workspaces: 1 },
  (fx) => {
    /** Requests from `address`: the app trusts X-Forwarded-For from 127.0.0.1 (TRUST_PROXY), as behind a proxy. */
    const from = (address: string, headers: Record<string, string> = {}) => ({ 'x-forwarded-for': address, ...headers });
    const tokenFrom = (address: string, body: Record<string, string>) =>
      fx.t.http.request('POST', '/connect/token', {
        body: new URLSearchParams(body).toString(),
        headers: from(address, { 'content-type': 'application/x-www-form-urlencoded' }),
      });
    const assertTooMany = (res: { status: number; headers: Headers; body: any }) => {
      assert.equal(res.status, 429, JSON.stringify(res.body));
      assert.equal(res.body.error.code, 'RateLimit:Exceeded');
      assert.match(res.body.message, /^Rate limit 'unauthenticated-requests' of 4 per 60s exceeded\./);
      const retryAfter = Number(res.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
      assert.equal(res.headers.get('x-ratelimit-remaining'), '0');
    };

    it('answers 401 while under the limit, then 429 with Retry-After; valid tokens are not counted, other addresses not touched', async () => {
      const forged = jwt.sign({ workspace_id: fx.a.workspaceId, scope: 'messaging_api' }, 'not-the-secret', { subject: randomUUID() });
      const attempts: Array<Record<string, string>> = [
        {},
        { authorization: 'Bearer garbage' },
        { authorization: `Bearer ${forged}` },
        { authorization: 'Basic eDp5' },
      ];
      for (const [i, headers] of attempts.entries()) {
        const res = await fx.t.http.get('/v1/workspaces/users', from('203.0.113.10', headers));
        assert.equal(res.status, 401, res.text);
        assert.equal(res.headers.get('x-ratelimit-limit'), String(LIMIT));
        assert.equal(res.headers.get('x-ratelimit-remaining'), String(LIMIT - 1 - i));
      }
      assertTooMany(await fx.t.http.get('/v1/workspaces/users', from('203.0.113.10')));
      for (let i = 0; i < LIMIT + 2; i++) {
        const valid = await fx.a.api.get('/v1/workspaces/users', from('203.0.113.10'));
        assert.equal(valid.status, 200, 'a valid token is counted per workspace, not per address');
      }
      assert.equal((await fx.t.http.get('/v1/workspaces/users', from('203.0.113.11'))).status, 401, 'another address has its own budget');
    });

    it('counts an IPv6 client by its /64', async () => {
      const get = (address: string) => fx.t.http.get('/v1/workspaces/users', from(address));
      for (const address of ['2001:db8:1:2::10', '2001:db8:1:2:ffff::1', '2001:db8:1:2:aaaa::2', '2001:db8:1:2::beef']) {
        assert.equal((await get(address)).status, 401, address);
      }
      assertTooMany(await get('2001:db8:1:2::1234'));
      assert.equal((await get('2001:db8:1:3::10')).status, 401, 'the next /64 has its own budget');
    });

    it('counts /connect/token per address before validating the request or hashing a secret: 25 random client ids, 4 answers', async () => {
      for (let i = 0; i < LIMIT; i++) {
        const res = await tokenFrom('203.0.113.20', {
          grant_type: 'client_credentials',
          client_id: `sa_${randomUUID()}`,
          client_secret: 'guess',
        });
        assert.equal(res.status, 401, res.text);
        assert.equal(res.body.error, 'invalid_client');
        assert.equal(res.headers.get('x-ratelimit-remaining'), String(LIMIT - 1 - i));
      }
      for (let i = 0; i < 21; i++) {
        assertTooMany(
          await tokenFrom('203.0.113.20', { grant_type: 'client_credentials', client_id: `sa_${randomUUID()}`, client_secret: 'guess' }),
        );
      }
      assertTooMany(await tokenFrom('203.0.113.20', { grant_type: 'password' }));
      assertTooMany(
        await tokenFrom('203.0.113.20', { grant_type: 'client_credentials', client_id: fx.a.clientId, client_secret: fx.a.clientSecret }),
      );
      const elsewhere = await tokenFrom('203.0.113.21', {
        grant_type: 'client_credentials',
        client_id: fx.a.clientId,
        client_secret: fx.a.clientSecret,
      });
      assert.equal(elsewhere.status, 200, elsewhere.text);
      assert.equal(elsewhere.headers.get('x-ratelimit-remaining'), String(LIMIT - 1));
    });

    it('counts wrong admin keys too, never the right one', async () => {
      for (let i = 0; i < LIMIT; i++) {
        const res = await fx.t.http.get('/admin/v1/workspaces', from('203.0.113.30', { authorization: 'Bearer not-the-admin-key-at-all' }));
        assert.equal(res.status, 401);
      }
      assertTooMany(await fx.t.http.get('/admin/v1/workspaces', from('203.0.113.30')));
      const admin = await fx.t.http.get('/admin/v1/workspaces', from('203.0.113.30', { authorization: `Bearer ${ADMIN_KEY}` }));
      assert.equal(admin.status, 200);
    });
  },
);

describeWithApp(
  'The client address without TRUST_PROXY',
  { env: { RATE_LIMIT_UNAUTHENTICATED_REQUESTS_PER_MINUTE: '2' }, workspaces: 0 },
  (fx) => {
    it('is the peer’s: X-Forwarded-For cannot buy a fresh budget', async () => {
      const statuses = [];
      for (const address of ['198.51.100.1', '198.51.100.2', '198.51.100.3']) {
        statuses.push((await fx.t.http.get('/v1/workspaces/users', { 'x-forwarded-for': address })).status);
      }
      assert.deepEqual(statuses, [401, 401, 429]);
    });
  },
);
