import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeWithApp } from '../support/describe-with-app.js';

const SAMPLE_ID = '0190a1b2-0000-7000-8000-000000000000';

describeWithApp('Every operation of the OpenAPI document is guarded', { workspaces: 0 }, (fx) => {
  let operations: Array<{ method: string; path: string; public: boolean; admin: boolean }>;

  before(async () => {
    const doc = (await fx.t.http.get('/docs-json')).body;
    operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({
        method: method.toUpperCase(),
        path: path.replace(/\{[^}]+\}/g, SAMPLE_ID),
        public: op['x-public'] === true,
        admin: (op.security ?? []).some((s: Record<string, unknown>) => 'admin-key' in s),
      })),
    );
  });

  it('finds the operations', () => {
    assert.ok(operations.length >= 10, `only ${operations.length} operations`);
  });

  it('refuses an anonymous call to every non-public operation with 401', async () => {
    const open: string[] = [];
    for (const op of operations.filter((o) => !o.public)) {
      const res = await fx.t.http.request(op.method, op.path, { json: op.method === 'GET' || op.method === 'DELETE' ? undefined : {} });
      if (res.status !== 401 || res.body?.error?.code !== 'Auth:Unauthorized') open.push(`${op.method} ${op.path} → ${res.status}`);
    }
    assert.deepEqual(open, []);
  });

  it('refuses every admin operation without the admin key, and with a workspace token', async () => {
    const admin = operations.filter((o) => o.admin);
    assert.ok(admin.length >= 8);
    for (const op of admin) {
      const res = await fx.t.http.request(op.method, op.path, { json: op.method === 'POST' || op.method === 'PUT' ? {} : undefined });
      assert.equal(res.status, 401, `${op.method} ${op.path}`);
      const wrongKey = await fx.t.http.request(op.method, op.path, { headers: { authorization: 'Bearer wrong-key-wrong-key' } });
      assert.equal(wrongKey.status, 401, `${op.method} ${op.path}`);
    }
  });

  it('documents as public only Service Login', () => {
    const publicOps = operations.filter((o) => o.public && !o.admin).map((o) => `${o.method} ${o.path}`);
    assert.deepEqual(publicOps, ['POST /connect/token']);
  });

  it('protects the queue dashboard with the admin key', async () => {
    const anonymous = await fx.t.http.get('/admin/queues');
    assert.equal(anonymous.status, 401);
    const withKey = await fx.t.admin.get('/admin/queues');
    assert.equal(withKey.status, 200);
    const basic = await fx.t.http.get('/admin/queues', {
      authorization: `Basic ${Buffer.from(`admin:${process.env.ADMIN_API_KEY}`).toString('base64')}`,
    });
    assert.equal(basic.status, 200);
  });
});

describeWithApp('Admin routes without ADMIN_API_KEY', { env: { ADMIN_API_KEY: '' }, workspaces: 0 }, (fx) => {
  it('do not exist (404)', async () => {
    delete process.env.ADMIN_API_KEY;
    const res = await fx.t.http.post('/admin/v1/workspaces', { name: 'x' }, { authorization: 'Bearer anything-at-all' });
    assert.equal(res.status, 404);
  });
});
