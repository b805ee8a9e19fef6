import assert from 'node:assert/strict';
import { Agent, get } from 'node:http';
import { after, it } from 'node:test';
import { describeWithApp } from '../support/describe-with-app.js';
import { postLargeBody, type LargeBodyResult } from '../support/large-body.js';

const MB = 1024 * 1024;

describeWithApp('Request bodies over HTTP_BODY_LIMIT_MB', { env: { HTTP_BODY_LIMIT_MB: '1' } }, (fx) => {
  const agents: Agent[] = [];

  /** A keep-alive agent with one socket, so a second request shows whether the connection survived. */
  const oneSocket = () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    agents.push(agent);
    return agent;
  };
  const assertTooLarge = (res: LargeBodyResult) => {
    assert.equal(res.status, 413, JSON.stringify(res.body));
    assert.deepEqual(res.body, {
      statusCode: 413,
      message: 'Request body is too large',
      error: { code: 'Request:PayloadTooLarge', message: 'Request body is too large', details: null, validationErrors: null },
    });
    assert.equal(res.writeError, null, `the server read the whole body instead of resetting the connection (${res.sent} bytes sent)`);
    assert.notEqual(res.headers.connection, 'close');
  };
  const reusesConnection = (agent: Agent) =>
    new Promise<{ status: number; reused: boolean }>((resolve, reject) => {
      const req = get(`${fx.t.baseUrl}/health/live`, { agent }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket }));
      });
      req.on('error', reject);
    });

  after(async () => {
    for (const agent of agents) agent.destroy();
  });

  it('answers a JSON body over the limit with a 413 envelope the client receives, and keeps the connection', async () => {
    const agent = oneSocket();
    const res = await postLargeBody(`${fx.t.baseUrl}/v1/contacts/import/vcards`, {
      size: 3 * MB,
      headers: { authorization: `Bearer ${fx.a.token}` },
      agent,
    });
    assertTooLarge(res);
    assert.equal(res.sent, 3 * MB);
    assert.deepEqual(await reusesConnection(agent), { status: 200, reused: true });
  });

  it('does the same for a chunked body without Content-Length, and for a form body', async () => {
    const chunked = await postLargeBody(`${fx.t.baseUrl}/v1/contacts/import/vcards`, {
      afterAnswer: MB,
      headers: { authorization: `Bearer ${fx.a.token}` },
      agent: oneSocket(),
    });
    assertTooLarge(chunked);
    assert.ok(chunked.sent > MB, `sent ${chunked.sent}`);
    const form = await postLargeBody(`${fx.t.baseUrl}/connect/token`, {
      size: 2 * MB,
      contentType: 'application/x-www-form-urlencoded',
      agent: oneSocket(),
    });
    assertTooLarge(form);
  });

  it('closes the connection rather than read a body declared past what it drains (4 × the limit, at least 64 MB)', async () => {
    const res = await postLargeBody(`${fx.t.baseUrl}/v1/contacts/import/vcards`, { size: 65 * MB, firstChunk: 0, agent: oneSocket() });
    assert.equal(res.status, 413);
    assert.equal(res.body.error.code, 'Request:PayloadTooLarge');
    assert.equal(res.headers.connection, 'close');
    assert.ok(res.sent < 65 * MB, 'the rest of the body was not read');
  });

  it('takes a body under the limit', async () => {
    const card = 'BEGIN:VCARD\nVERSION:3.0\nFN:Padded\nTEL:+14155550190\nEND:VCARD';
    const body = JSON.stringify({ vCards: [card] }).replace('{', `{${' '.repeat(MB - 200)}`);
    assert.ok(body.length > 0.99 * MB && body.length < MB);
    const res = await fx.a.api.request('POST', '/v1/contacts/import/vcards', { body, headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.createdCount, 1);
  });
});
