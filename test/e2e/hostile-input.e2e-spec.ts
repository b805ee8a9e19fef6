import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeWithApp } from '../support/describe-with-app.js';
import { Controller, Get, Module, Param } from '@nestjs/common';
import { createChannel, createWorkspace, type WorkspaceFixture } from '../support/fixtures.js';

/** Fails the way unexpected bugs do, with stacks and source paths in their messages. */
@Controller('test-crash')
class CrashController {
  @Get(':kind')
  crash(@Param('kind') kind: string): never {
    if (kind === 'type') return (null as unknown as { x: () => never }).x();
    const error = new Error(
      `failed at /work/src/contacts/contacts.service.ts:12:34\n    at ContactsService.insert (file:///work/dist/src/x.js:1:2)`,
    );
    if (kind === 'status') Object.assign(error, { statusCode: 503 });
    throw error;
  }
}

@Module({ controllers: [CrashController] })
class CrashModule {}

/** Issue 11 §2: inputs that used to answer 500. Each is a 400 in the envelope (401 for odd tokens), and writes nothing. */
describeWithApp('Hostile input', { extraModules: [CrashModule] }, (fx) => {
  let ws: WorkspaceFixture;

  before(async () => {
    ws = await createWorkspace(fx.t);
  });

  it('refuses a Sorting that names a property of Object.prototype, and keeps working', async () => {
    for (const sorting of ['__proto__', 'constructor DESC', 'toString']) {
      const res = await ws.api.get(`/v1/tags/service-account?Sorting=${encodeURIComponent(sorting)}`);
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error.code, 'Request:InvalidSorting');
    }
    const list = await ws.api.get('/v1/tags/service-account?Sorting=Name');
    assert.equal(list.status, 200, list.text);
    assert.equal(({} as Record<string, unknown>)['t.id'], undefined, 'Object.prototype untouched');
  });

  const contactCount = async () => (await ws.api.get('/v1/contacts?MaxResultCount=1')).body.totalCount as number;
  const postRaw = (path: string, body: string, contentType = 'application/json') =>
    ws.api.request('POST', path, { body, headers: { 'content-type': contentType } });
  const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

  it('refuses NUL and unpaired surrogates in any string or property name of a body, naming the member, writing nothing', async () => {
    const before = await contactCount();
    const cases: Array<[string, string]> = [
      ['{"name":"Ann\\u0000","phoneNumber":"966501110001"}', 'name'],
      ['{"name":"Ann","phoneNumber":"966501110001","customFields":{"note":"cut \\ud83d"}}', 'customFields.note'],
      ['{"name":"Ann","phoneNumber":"966501110001","customFields":{"list":["ok","\\udc00"]}}', 'customFields.list[1]'],
      ['{"name":"Ann","phoneNumber":"966501110001","customFields":{"k\\u0000":1}}', 'customFields.k\ufffd'],
      ['{"name":"Ann","phoneNumber":"966501110001","email":"ann\\ud800@example.com"}', 'email'],
    ];
    for (const [body, member] of cases) {
      const res = await postRaw('/v1/contacts', body);
      assert.equal(res.status, 400, `${body}: ${res.text}`);
      assert.equal(res.body.error.code, 'Request:UnsafeText');
      assert.deepEqual(res.body.error.validationErrors[0].members, [member]);
    }
    const form = await postRaw('/v1/contacts', 'name=Ann%00&phoneNumber=966501110001', 'application/x-www-form-urlencoded');
    assert.equal(form.status, 400, form.text);
    assert.equal(await contactCount(), before);
  });

  it('refuses NUL in the query, naming the parameter as sent', async () => {
    for (const query of ['Filter=%00', 'Name=a%00b', 'SkipCount=0&Sorting=Name%00']) {
      const res = await ws.api.get(`/v1/contacts?${query}`);
      assert.equal(res.status, 400, `${query}: ${res.text}`);
      assert.equal(res.body.error.code, 'Request:UnsafeText');
    }
    const res = await ws.api.get('/v1/contacts?Filter=%00');
    assert.deepEqual(res.body.error.validationErrors[0].members, ['Filter']);
  });

  it('refuses a body nested deeper than 64 levels before walking it, and takes 64', async () => {
    const before = await contactCount();
    for (const depth of [64, 1_000, 100_000]) {
      const res = await postRaw('/v1/contacts', `{"name":"Deep","phoneNumber":"966501110002","customFields":${deepObject(depth)}}`);
      assert.equal(res.status, 400, res.text.slice(0, 300));
      assert.equal(res.body.error.code, 'Request:NestedTooDeep');
    }
    const array = await postRaw('/v1/contacts/search', `{"tagIds":${'['.repeat(5000)}${']'.repeat(5000)}}`);
    assert.equal(array.status, 400);
    assert.equal(await contactCount(), before);
    const atLimit = await postRaw('/v1/contacts', `{"name":"Deep","phoneNumber":"966501110002","customFields":${deepObject(63)}}`);
    assert.equal(atLimit.status, 200, atLimit.text.slice(0, 300));
  });

  it('caps SkipCount at 2^31 - 1 on every list, in the query and in a body', async () => {
    for (const path of [
      '/v1/contacts',
      '/v1/tags/service-account',
      '/v1/channels/service-account',
      '/v1/outbound-ivr',
      '/v1/webhook-deliveries',
    ]) {
      for (const skip of ['9223372036854775808', '18446744073709551616', '2147483648']) {
        const res = await ws.api.get(`${path}?SkipCount=${skip}`);
        assert.equal(res.status, 400, `${path} ${skip}: ${res.text}`);
        assert.deepEqual(res.body.error.validationErrors[0].members, ['skipCount']);
      }
      const last = await ws.api.get(`${path}?SkipCount=2147483647`);
      assert.equal(last.status, 200, `${path}: ${last.text}`);
      assert.deepEqual(last.body.items, []);
    }
    const admin = await fx.t.admin.get('/admin/v1/workspaces?SkipCount=9223372036854775808');
    assert.equal(admin.status, 400);
    const search = await postRaw('/v1/contacts/search', '{"skipCount":1e300}');
    assert.equal(search.status, 400, search.text);
  });

  it('refuses an explicit null for optional fields that cannot be null, changing nothing', async () => {
    const contact = (await ws.api.post('/v1/contacts', { name: 'Nora', phoneNumber: '966501110003', contactType: 2 })).body;
    for (const field of ['name', 'phoneNumber', 'contactType', 'note']) {
      const res = await ws.api.put(`/v1/contacts/${contact.id}`, { [field]: null });
      assert.equal(res.status, 400, `${field}: ${res.text}`);
      assert.ok(
        res.body.error.validationErrors.some((e: { message: string }) => e.message === `${field} must not be null`),
        res.text,
      );
    }
    const after = (await ws.api.get(`/v1/contacts/${contact.id}`)).body;
    assert.deepEqual([after.name, after.phoneNumber, after.contactType, after.notes], ['Nora', '+966501110003', 2, []]);
    const cleared = await ws.api.put(`/v1/contacts/${contact.id}`, { company: null, email: null, customFields: null });
    assert.equal(cleared.status, 200, 'nullable fields still take null');

    const tag = (await ws.api.post('/v1/tags/service-account', { name: 'Pinned', isPinned: true })).body;
    for (const field of ['name', 'isPinned']) {
      const res = await ws.api.put(`/v1/tags/service-account/${tag.id}`, { [field]: null });
      assert.equal(res.status, 400, `${field}: ${res.text}`);
    }
    const tags = (await ws.api.get('/v1/tags/service-account')).body.items;
    assert.deepEqual(
      tags.filter((x: { id: string }) => x.id === tag.id).map((x: { name: string; isPinned: boolean }) => [x.name, x.isPinned]),
      [['Pinned', true]],
    );

    const property = (await ws.api.post('/v1/contact-property-definitions', { name: 'Tier', type: 1, isRequired: false })).body;
    for (const field of ['name', 'isRequired', 'type', 'selectOptions']) {
      const res = await ws.api.put(`/v1/contact-property-definitions/${property.id}`, { [field]: null });
      assert.equal(res.status, 400, `${field}: ${res.text}`);
    }
    const unchanged = (await ws.api.get('/v1/contact-property-definitions')).body.find((p: { id: string }) => p.id === property.id);
    assert.deepEqual([unchanged.name, unchanged.isRequired], ['Tier', false]);

    const token = await fx.t.http.post('/connect/token', {
      grant_type: 'client_credentials',
      client_id: ws.clientId,
      client_secret: ws.clientSecret,
      scope: null,
    });
    assert.equal(token.status, 400, token.text);
  });

  it('refuses ISO week dates and dates that do not exist, in a query and in a date property', async () => {
    const channel = await createChannel(fx.t, ws.workspaceId);
    for (const date of ['2026-W01-1', '2026-060', '2026-02-30', '2026-03-01T14']) {
      const res = await ws.api.get(`/v2/conversations/service-account/channels/${channel.id}?FromDate=${date}`);
      assert.equal(res.status, 400, `${date}: ${res.text}`);
      assert.deepEqual(res.body.error.validationErrors[0].members, ['fromDate']);
    }
    const ok = await ws.api.get(`/v2/conversations/service-account/channels/${channel.id}?FromDate=2026-03-01T14:47&ToDate=2026-03-02`);
    assert.equal(ok.status, 200, ok.text);

    const contact = (await ws.api.post('/v1/contacts', { name: 'Dated', phoneNumber: '966501110004' })).body;
    const property = (await ws.api.post('/v1/contact-property-definitions', { name: 'Renewal', type: 4 })).body;
    for (const value of ['2026-W01-1', '2026-02-30']) {
      const res = await ws.api.put(`/v1/contacts/${contact.id}/properties/${property.id}`, { value });
      assert.equal(res.status, 400, `${value}: ${res.text}`);
      assert.equal(res.body.error.code, 'Contacts:InvalidPropertyValue');
    }
    const history = await ws.api.get(`/v1/contacts/${contact.id}/history`);
    assert.equal(history.body.items.filter((e: { propertyName: string }) => e.propertyName === 'Renewal').length, 0, 'nothing written');
  });

  it('refuses an array where a nested object belongs', async () => {
    const step = { id: 'bye', type: 'Hangup', props: { audioFileUrl: 'https://media.example.com/bye.wav' } };
    const flows = [
      { name: 'Odd', startStepId: 'bye', steps: [[], step] },
      { name: 'Odd', startStepId: 'bye', steps: [{ ...step, props: [] }] },
      { name: 'Odd', startStepId: 'bye', steps: [{ ...step, props: [[]] }] },
    ];
    for (const flow of flows) {
      const res = await ws.api.post('/v1/outbound-ivr-flows', flow);
      assert.equal(res.status, 400, res.text);
    }
    assert.equal((await ws.api.get('/v1/outbound-ivr-flows')).body.totalCount, 0);
    const search = await ws.api.post('/v1/contacts/search', { customPropertyFilters: [[]] });
    assert.equal(search.status, 400, search.text);
    assert.deepEqual(search.body.error.validationErrors[0].members, ['customPropertyFilters']);
  });

  it('refuses template components of the wrong shape, so that stored templates can always be listed', async () => {
    const channel = await createChannel(fx.t, ws.workspaceId, { name: 'Templates', phoneNumber: '+14155550177' });
    const body = { type: 'BODY', text: 'Hi {{1}}' };
    const bad: unknown[] = [
      { type: 'HEADER', format: 5 },
      { type: 'HEADER', format: 'TEXT', text: ['x'] },
      { type: 'HEADER' },
      { type: 'BODY', text: 42 },
      { type: 'FOOTER', text: null },
      { type: 'BUTTONS', buttons: 'x' },
      { type: 'BUTTONS', buttons: [null] },
      { type: 'BUTTONS', buttons: [{ type: 'URL', text: 'Go', url: 7 }] },
      { type: 'SIDEBAR', text: 'x' },
      [],
    ];
    for (const [i, component] of bad.entries()) {
      const res = await fx.t.admin.post(`/admin/v1/channels/${channel.id}/templates`, {
        name: `bad_${i}`,
        language: 'en_US',
        category: 'UTILITY',
        status: 'APPROVED',
        components: [component, body],
      });
      assert.equal(res.status, 400, `${JSON.stringify(component)}: ${res.text}`);
    }
    const list = await ws.api.get(`/v1/whatsapp/service-account/templates?ChannelId=${channel.id}`);
    assert.equal(list.status, 200, list.text);
    assert.equal(list.body.totalCount, 0);
  });

  it('answers a path that cannot be decoded, or an id longer than any, with a 404 in the envelope', async () => {
    for (const id of ['%zz', '%ED%A0%80', '%F0%9F', 'x'.repeat(600)]) {
      const res = await ws.api.get(`/v1/contacts/${id}`);
      assert.equal(res.status, 404, `${id.slice(0, 20)}: ${res.text.slice(0, 200)}`);
      assert.equal(res.body.error.code, 'Request:NotFound');
      assert.equal(res.body.statusCode, 404);
    }
  });

  it('answers an unexpected failure with a 500 envelope and an errorId, never its stack or source paths', async () => {
    for (const kind of ['type', 'plain', 'status']) {
      const res = await ws.api.get(`/test-crash/${kind}`);
      assert.equal(res.status, 500, kind);
      assert.equal(res.body.error.code, 'Server:InternalError');
      assert.match(res.body.error.details, /^errorId: [0-9a-f-]{36}$/);
      assert.doesNotMatch(res.text, /\n\s+at |\/src\/|\/dist\/|\.ts:\d|\.js:\d/, kind);
    }
  });
});
