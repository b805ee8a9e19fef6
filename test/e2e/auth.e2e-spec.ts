import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeWithApp } from '../support/describe-with-app.js';
import jwt from 'jsonwebtoken';
import { createWorkspace, requestToken, type WorkspaceFixture } from '../support/fixtures.js';

describeWithApp('Account API: Service Login and bearer tokens', {}, (fx) => {
  let ws: WorkspaceFixture;

  before(async () => {
    ws = await createWorkspace(fx.t);
  });

  it('issues a bearer token for valid client credentials (form body)', async () => {
    const res = await requestToken(fx.t, ws.clientId, ws.clientSecret);
    assert.equal(res.status, 200);
    assert.equal(res.body.token_type, 'Bearer');
    assert.equal(res.body.expires_in, 3600);
    assert.equal(res.body.scope, 'messaging_api');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const claims = jwt.decode(res.body.access_token) as Record<string, unknown>;
    assert.equal(claims.sub, ws.serviceAccountId);
    assert.equal(claims.workspace_id, ws.workspaceId);
    assert.equal(claims.scope, 'messaging_api');
    assert.equal(typeof claims.exp, 'number');
  });

  it('accepts a JSON body too', async () => {
    const res = await fx.t.http.post('/connect/token', {
      grant_type: 'client_credentials',
      client_id: ws.clientId,
      client_secret: ws.clientSecret,
      scope: 'messaging_api',
    });
    assert.equal(res.status, 200, res.text);
    assert.ok(res.body.access_token);
  });

  it('refuses a wrong secret and an unknown client with invalid_client (401)', async () => {
    const wrong = await requestToken(fx.t, ws.clientId, 'not-the-secret');
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.error, 'invalid_client');
    const unknown = await requestToken(fx.t, 'sa_unknown', 'whatever');
    assert.equal(unknown.status, 401);
    assert.equal(unknown.body.error, 'invalid_client');
  });

  it('answers RFC 6749 errors for an unsupported grant, a missing parameter and a foreign scope', async () => {
    const grant = await requestToken(fx.t, ws.clientId, ws.clientSecret, { grant_type: 'password' });
    assert.equal(grant.status, 400);
    assert.equal(grant.body.error, 'unsupported_grant_type');
    const missing = await fx.t.http.post('/connect/token', { grant_type: 'client_credentials', client_id: ws.clientId });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.error, 'invalid_request');
    const scope = await requestToken(fx.t, ws.clientId, ws.clientSecret, { scope: 'admin' });
    assert.equal(scope.status, 400);
    assert.equal(scope.body.error, 'invalid_scope');
  });

  it('accepts the token on a protected route', async () => {
    const res = await ws.api.get('/v1/workspaces/users');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, []);
  });

  it('answers 401 with the error envelope for missing, garbage, forged and expired tokens', async () => {
    const secretOfSomeoneElse = 'x'.repeat(64);
    const forged = jwt.sign({ workspace_id: ws.workspaceId, scope: 'messaging_api' }, secretOfSomeoneElse, {
      subject: ws.serviceAccountId,
      issuer: 'messaging-service',
      expiresIn: 600,
    });
    const expired = jwt.sign(
      { workspace_id: ws.workspaceId, scope: 'messaging_api', exp: Math.floor(Date.now() / 1000) - 10 },
      process.env.JWT_SECRET!,
      {
        subject: ws.serviceAccountId,
        issuer: 'messaging-service',
      },
    );
    const cases: Array<[string, Record<string, string>, string]> = [
      ['missing', {}, 'Auth:Unauthorized'],
      ['garbage', { authorization: 'Bearer not.a.jwt' }, 'Auth:Unauthorized'],
      ['wrong scheme', { authorization: `Basic ${ws.token}` }, 'Auth:Unauthorized'],
      ['forged', { authorization: `Bearer ${forged}` }, 'Auth:Unauthorized'],
      ['expired', { authorization: `Bearer ${expired}` }, 'Auth:TokenExpired'],
    ];
    for (const [name, headers, code] of cases) {
      const res = await fx.t.http.get('/v1/workspaces/users', headers);
      assert.equal(res.status, 401, name);
      assert.equal(res.body.statusCode, 401, name);
      assert.equal(res.body.error.code, code, name);
      assert.equal(typeof res.body.message, 'string', name);
    }
  });

  it('answers 401 for a token signed with the right key but with claims Service Login never writes', async () => {
    const good = { sub: ws.serviceAccountId, workspace_id: ws.workspaceId, scope: 'messaging_api' };
    const cases: Record<string, Record<string, unknown>> = {
      'no scope': { sub: good.sub, workspace_id: good.workspace_id },
      'numeric scope': { ...good, scope: 42 },
      'array scope': { ...good, scope: ['messaging_api'] },
      'null scope': { ...good, scope: null },
      'non-UUID sub': { ...good, sub: 'not-a-uuid' },
      'numeric sub': { ...good, sub: 42 },
      'no sub': { workspace_id: good.workspace_id, scope: good.scope },
      'non-UUID workspace': { ...good, workspace_id: 'x' },
      'no workspace': { sub: good.sub, scope: good.scope },
      'numeric name': { ...good, name: 7 },
    };
    for (const [name, claims] of Object.entries(cases)) {
      const token = jwt.sign(claims, process.env.JWT_SECRET!, { issuer: 'messaging-service', expiresIn: 600 });
      const res = await fx.t.http.get('/v1/workspaces/users', { authorization: `Bearer ${token}` });
      assert.equal(res.status, 401, `${name}: ${res.text}`);
      assert.equal(res.body.error.code, 'Auth:Unauthorized', name);
      assert.equal(res.headers.get('www-authenticate'), 'Bearer', name);
    }
  });

  it('answers 403 for a valid token without the API scope', async () => {
    const token = jwt.sign({ workspace_id: ws.workspaceId, scope: 'other' }, process.env.JWT_SECRET!, {
      subject: ws.serviceAccountId,
      issuer: 'messaging-service',
      expiresIn: 600,
    });
    const res = await fx.t.http.get('/v1/workspaces/users', { authorization: `Bearer ${token}` });
    assert.equal(res.status, 403);
    assert.equal(res.body.error.code, 'Auth:InsufficientScope');
  });

  it('stops a revoked service account: no new tokens, and its token is refused', async () => {
    const other = await createWorkspace(fx.t, 'To be revoked');
    assert.equal((await other.api.get('/v1/workspaces/users')).status, 200);
    const revoke = await fx.t.admin.delete(`/admin/v1/workspaces/${other.workspaceId}/service-accounts/${other.serviceAccountId}`);
    assert.equal(revoke.status, 204);
    const reuse = await other.api.get('/v1/workspaces/users');
    assert.equal(reuse.status, 401);
    assert.equal(reuse.body.error.code, 'Auth:TokenRevoked');
    const login = await requestToken(fx.t, other.clientId, other.clientSecret);
    assert.equal(login.status, 401);
    assert.equal(login.body.error, 'invalid_client');
  });
});
