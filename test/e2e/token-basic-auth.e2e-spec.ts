import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeWithApp } from '../support/describe-with-app.js';

const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

describeWithApp('Service Login with HTTP Basic client authentication (RFC 6749 §2.3.1)', {}, (fx) => {
  const token = (body: string, authorization?: string) =>
    fx.t.http.request('POST', '/connect/token', {
      body,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(authorization ? { authorization } : {}) },
    });

  it('issues a token for credentials sent as Basic, as Swagger UI sends them, and the token works', async () => {
    const res = await token('grant_type=client_credentials', basic(fx.a.clientId, fx.a.clientSecret));
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.token_type, 'Bearer');
    const channels = await fx.t.http.withToken(res.body.access_token).get('/v1/channels/service-account');
    assert.equal(channels.status, 200);
  });

  it('takes the scope in the body beside Basic credentials', async () => {
    const scoped = await token('grant_type=client_credentials&scope=messaging_api', basic(fx.a.clientId, fx.a.clientSecret));
    assert.equal(scoped.status, 200, scoped.text);
    assert.equal(scoped.body.scope, 'messaging_api');
  });

  it('refuses a wrong Basic secret as invalid_client with WWW-Authenticate', async () => {
    const res = await token('grant_type=client_credentials', basic(fx.a.clientId, `${fx.a.clientSecret}x`));
    assert.equal(res.status, 401);
    assert.equal(res.body.error, 'invalid_client');
    assert.match(res.headers.get('www-authenticate') ?? '', /^Basic/);
  });

  it('refuses Basic credentials that are not id:secret as invalid_client', async () => {
    const res = await token('grant_type=client_credentials', `Basic ${Buffer.from('no-colon-here').toString('base64')}`);
    assert.equal(res.status, 401);
    assert.equal(res.body.error, 'invalid_client');
  });

  it('refuses credentials in both the header and the body as invalid_request', async () => {
    const body = new URLSearchParams({ grant_type: 'client_credentials', client_id: fx.a.clientId, client_secret: fx.a.clientSecret });
    const res = await token(body.toString(), basic(fx.a.clientId, fx.a.clientSecret));
    assert.equal(res.status, 400);
    assert.equal(res.body.error, 'invalid_request');
  });

  it('still checks the grant type with Basic credentials', async () => {
    const res = await token('grant_type=password', basic(fx.a.clientId, fx.a.clientSecret));
    assert.equal(res.status, 400);
    assert.equal(res.body.error, 'unsupported_grant_type');
  });
});
