import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createWorkspace, requestToken, type WorkspaceFixture } from '../support/fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

describe('Rate limiting per workspace in Redis', () => {
  let t: TestApp;
  let a: WorkspaceFixture;
  let b: WorkspaceFixture;

  before(async () => {
    t = await startTestApp({ RATE_LIMIT_REQUESTS_PER_MINUTE: '5', RATE_LIMIT_TOKEN_REQUESTS_PER_MINUTE: '3' });
    a = await createWorkspace(t, 'A');
    b = await createWorkspace(t, 'B');
  });
  after(() => t.close());

  it('reports the limit in the X-RateLimit headers and what remains on GET /v1/rate-limits', async () => {
    const first = await a.api.get('/v1/workspaces/users');
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('x-ratelimit-limit'), '5');
    assert.equal(first.headers.get('x-ratelimit-remaining'), '4');
    const reset = Number(first.headers.get('x-ratelimit-reset'));
    assert.ok(reset > 0 && reset <= 60, `reset ${reset}`);

    const limits = await a.api.get('/v1/rate-limits');
    assert.equal(limits.status, 200);
    const requests = limits.body.find((l: { name: string }) => l.name === 'requests');
    assert.deepEqual(
      { limit: requests.limit, windowSeconds: requests.windowSeconds, remaining: requests.remaining },
      { limit: 5, windowSeconds: 60, remaining: 3 },
    );
    assert.deepEqual(limits.body.map((l: { name: string }) => l.name).sort(), ['ivr-calls', 'requests', 'whatsapp-sends']);
  });

  it('answers 429 with Retry-After and the envelope once the workspace is over its limit, without touching another workspace', async () => {
    let last = await a.api.get('/v1/workspaces/users');
    for (let i = 1; i < 4; i++) last = await a.api.get('/v1/workspaces/users');
    assert.equal(last.status, 429);
    assert.equal(last.body.statusCode, 429);
    assert.equal(last.body.error.code, 'RateLimit:Exceeded');
    const retryAfter = Number(last.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    assert.equal(last.headers.get('x-ratelimit-remaining'), '0');

    const other = await b.api.get('/v1/workspaces/users');
    assert.equal(other.status, 200, 'workspace B has its own budget');
  });

  it('limits token requests per client id', async () => {
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await requestToken(t, b.clientId, 'wrong-secret')).status);
    assert.deepEqual(statuses.slice(0, 2), [401, 401]);
    assert.equal(statuses[3], 429);
    const otherClient = await requestToken(t, a.clientId, a.clientSecret);
    assert.equal(otherClient.status, 200, 'another client id is not affected');
  });
});
