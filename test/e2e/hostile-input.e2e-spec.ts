import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createWorkspace, type WorkspaceFixture } from '../support/fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/** Issue 11 §2: inputs that used to answer 500. Each is a 400 in the envelope (401 for odd tokens), and writes nothing. */
describe('Hostile input', () => {
  let t: TestApp;
  let ws: WorkspaceFixture;

  before(async () => {
    t = await startTestApp();
    ws = await createWorkspace(t);
  });
  after(() => t.close());

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
});
