import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeWithApp } from '../support/describe-with-app.js';
import { createChannel, createWorkspace, type WorkspaceFixture } from '../support/fixtures.js';

function assertEnvelope(body: any, status: number, code?: string) {
  assert.equal(body.statusCode, status);
  assert.equal(typeof body.message, 'string');
  assert.equal(body.error.message, body.message);
  assert.ok('details' in body.error && 'validationErrors' in body.error, 'envelope has details and validationErrors');
  if (code) assert.equal(body.error.code, code);
}

describeWithApp('Platform conventions (API.md §1)', {}, (fx) => {
  let ws: WorkspaceFixture;

  before(async () => {
    ws = await createWorkspace(fx.t);
  });

  it('answers malformed JSON with a 400 envelope, never a 500', async () => {
    const res = await fx.t.admin.request('POST', '/admin/v1/workspaces', {
      body: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(res.status, 400);
    assertEnvelope(res.body, 400);
  });

  it('answers a property of the wrong type with a 400 naming the member', async () => {
    const res = await fx.t.admin.post('/admin/v1/workspaces', { name: 42 });
    assert.equal(res.status, 400);
    assertEnvelope(res.body, 400, 'Request:ValidationFailed');
    assert.deepEqual(res.body.error.validationErrors[0].members, ['name']);
  });

  it('binds PascalCase, camelCase and upper-case property names alike, at every level', async () => {
    const body = {
      NAME: 'Cased',
      Type: 3,
      PhoneNumber: '966 50 123 4567',
      WhatsApp: { Provider: 'sandbox' },
      VOICE: { provider: 'sandbox', Sandbox: { Answer: 'busy', PRESSDIGITS: ['1'] } },
    };
    const res = await fx.t.admin.post(`/admin/v1/workspaces/${ws.workspaceId}/channels`, body);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.name, 'Cased');
    assert.equal(res.body.type, 3);
    assert.equal(res.body.phoneNumber.number, '+966501234567', 'phone normalised to E.164');
    assert.equal(res.body.phoneNumber.region, 'SA');
    assert.equal(res.body.whatsAppInfo.provider, 'sandbox');
  });

  it('refuses a number that cannot be an international phone number', async () => {
    const res = await fx.t.admin.post(`/admin/v1/workspaces/${ws.workspaceId}/channels`, {
      name: 'Bad',
      type: 2,
      phoneNumber: '12345',
      whatsApp: { provider: 'sandbox' },
    });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.error.validationErrors[0].members, ['phoneNumber']);
  });

  it('reads query parameter names case-insensitively and caps MaxResultCount at 1000', async () => {
    await createChannel(fx.t, ws.workspaceId, { name: 'Second' });
    const lower = await ws.api.get('/v1/channels/service-account?maxResultCount=1');
    const pascal = await ws.api.get('/v1/channels/service-account?MaxResultCount=1&SkipCount=1');
    assert.equal(lower.status, 200);
    assert.equal(lower.body.items.length, 1);
    assert.equal(pascal.body.items.length, 1);
    assert.notEqual(pascal.body.items[0].id, lower.body.items[0].id);
    assert.equal(pascal.body.totalCount, lower.body.totalCount);
    const over = await ws.api.get('/v1/channels/service-account?MaxResultCount=1001');
    assert.equal(over.status, 400);
    assertEnvelope(over.body, 400, 'Request:ValidationFailed');
    assert.deepEqual(over.body.error.validationErrors[0].members, ['maxResultCount']);
    const negative = await ws.api.get('/v1/channels/service-account?SkipCount=-1');
    assert.equal(negative.status, 400);
    const notNumber = await ws.api.get('/v1/channels/service-account?MaxResultCount=ten');
    assert.equal(notNumber.status, 400);
  });

  it('answers 404 in the envelope for unknown routes and malformed or unknown ids', async () => {
    const route = await ws.api.get('/v1/no-such-thing');
    assert.equal(route.status, 404);
    assertEnvelope(route.body, 404);
    const malformed = await fx.t.admin.put(`/admin/v1/workspaces/${ws.workspaceId}/channels/not-a-uuid`, {});
    assert.equal(malformed.status, 404);
    assertEnvelope(malformed.body, 404);
    const unknown = await fx.t.admin.post('/admin/v1/workspaces/0190a1b2-0000-7000-8000-000000000000/service-accounts', { name: 'x' });
    assert.equal(unknown.status, 404);
    assertEnvelope(unknown.body, 404, 'Workspaces:WorkspaceNotFound');
  });

  it('answers a unique conflict with a 409 envelope', async () => {
    const first = await fx.t.admin.post(`/admin/v1/workspaces/${ws.workspaceId}/users`, { email: 'ann@example.com', name: 'Ann', role: 1 });
    assert.equal(first.status, 200, first.text);
    const again = await fx.t.admin.post(`/admin/v1/workspaces/${ws.workspaceId}/users`, {
      email: 'ANN@example.com',
      name: 'Ann 2',
      role: 'Member',
    });
    assert.equal(again.status, 409);
    assertEnvelope(again.body, 409, 'Workspaces:UserEmailTaken');
  });

  it('allows no cross-origin access by default (CORS_ORIGINS unset): preflights are a 403, answers carry no CORS headers', async () => {
    const origin = 'https://app.example.com';
    const preflight = await fx.t.http.request('OPTIONS', '/v1/contacts', { headers: { origin, 'access-control-request-method': 'GET' } });
    assert.equal(preflight.status, 403);
    assertEnvelope(preflight.body, 403, 'Cors:OriginNotAllowed');
    assert.equal(preflight.headers.get('access-control-allow-origin'), null);
    const res = await ws.api.get('/v1/contacts', { origin });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('access-control-allow-origin'), null);
  });

  it('echoes a request id, taking the caller’s when it sends one', async () => {
    const generated = await fx.t.http.get('/health/live');
    assert.match(generated.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    const sent = await fx.t.http.get('/health/live', { 'x-request-id': 'trace-abc-123' });
    assert.equal(sent.headers.get('x-request-id'), 'trace-abc-123');
  });

  it('exposes Prometheus metrics with HTTP latency by route template and queue depth', async () => {
    await fx.t.admin.put(`/admin/v1/workspaces/${ws.workspaceId}/channels/0190a1b2-0000-7000-8000-000000000001`, {});
    assert.equal((await fx.t.http.get('/v1/no-such-route/0190a1b2')).status, 404);
    assert.equal((await fx.t.http.get('/health/live')).status, 200);
    const res = await fx.t.http.get('/metrics');
    assert.equal(res.status, 200);
    assert.match(
      res.text,
      /http_request_duration_seconds_bucket\{[^}]*route="\/admin\/v1\/workspaces\/:workspaceId\/channels\/:channelId"/,
    );
    assert.match(res.text, /http_request_duration_seconds_count\{method="GET",route="unmatched",status="404"\} [1-9]/);
    assert.match(res.text, /http_request_duration_seconds_count\{method="GET",route="\/health\/live",status="200"\} [1-9]/);
    assert.doesNotMatch(res.text, /route="[^"]*0190a1b2/, 'raw ids never become labels');
    assert.match(res.text, /queue_depth\{queue="maintenance",state="waiting"\}/);
  });

  it('serves the Swagger UI and the OpenAPI document', async () => {
    const ui = await fx.t.http.get('/docs');
    assert.equal(ui.status, 200);
    assert.match(ui.text, /swagger-ui/i);
    const doc = await fx.t.http.get('/docs-json');
    assert.equal(doc.status, 200);
    assert.equal(doc.body.paths['/connect/token'].post.summary, 'Service Login');
    // Schema names the specification lists, for the groups built so far.
    const named = [
      'ConversationDto',
      'ChannelConversationDto',
      'ConversationTimelineDto',
      'CreateTagDto',
      'UpdateTagDto',
      'TagDto',
      'AiSummaryDto',
      'ReplyInfoDto',
      'InternalThreadDto',
      'LocationMessageDto',
      'AssignationInfoDto',
      'PagedResultOfTagDto',
      'PagedResultOfConversationDto',
      'PagedResultOfConversationTimelineDto',
    ];
    assert.deepEqual(
      named.filter((name) => !(name in doc.body.components.schemas)),
      [],
    );
    const summaries = Object.values(doc.body.paths as Record<string, Record<string, { summary: string }>>).flatMap((item) =>
      Object.values(item).map((op) => op.summary),
    );
    for (const summary of [
      'Set Property Value on Contact',
      'Contacts History',
      'Create Bulk Contacts vCards',
      'Tag a conversation',
      'Get Conversation Timeline',
      'List Tags',
    ]) {
      assert.ok(summaries.includes(summary), summary);
    }
  });
});
