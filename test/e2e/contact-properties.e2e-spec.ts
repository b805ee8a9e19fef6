import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeWithApp } from '../support/describe-with-app.js';

const NO_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/;

describeWithApp('Contact Properties, statistics and vCard import', { env: { RATE_LIMIT_REQUESTS_PER_MINUTE: '100000' } }, (fx) => {
  it('creates definitions with the type as integer or name and options as strings or { value, color }', async () => {
    const res = await fx.a.api.post('/v1/contact-property-definitions', {
      name: 'Lead Status',
      type: 'select',
      selectOptions: ['New', { value: 'Won', color: '#00ff00' }],
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), [
      'creationTime',
      'creatorId',
      'id',
      'isRequired',
      'key',
      'lastModificationTime',
      'lastModifierId',
      'name',
      'selectOptionDetails',
      'selectOptions',
      'type',
      'workspaceId',
    ]);
    assert.equal(res.body.type, 3);
    assert.equal(res.body.key, 'lead_status');
    assert.equal(res.body.isRequired, false);
    assert.deepEqual(res.body.selectOptions, ['New', 'Won']);
    assert.deepEqual(res.body.selectOptionDetails, [
      { value: 'New', color: null },
      { value: 'Won', color: '#00ff00' },
    ]);
    assert.match(res.body.creationTime, NO_OFFSET);
    const number = await fx.a.api.post('/v1/contact-property-definitions', { name: 'Revenue', type: 2 });
    assert.equal(number.body.type, 2);
    const list = await fx.a.api.get('/v1/contact-property-definitions');
    assert.deepEqual(
      list.body.map((d: { name: string }) => d.name),
      ['Lead Status', 'Revenue'],
      'ordered by creation',
    );
    assert.deepEqual((await fx.b.api.get('/v1/contact-property-definitions')).body, [], 'another workspace sees none');
  });

  it('refuses bad definitions: duplicate name (409), Select without options, duplicate options, unknown type', async () => {
    const duplicate = await fx.a.api.post('/v1/contact-property-definitions', { name: 'lead status', type: 1 });
    assert.equal(duplicate.status, 409);
    assert.equal(duplicate.body.error.code, 'ContactProperties:DuplicateName');
    const cases = [
      { name: 'NoOptions', type: 3 },
      { name: 'EmptyOptions', type: 3, selectOptions: [] },
      { name: 'Twice', type: 3, selectOptions: ['A', 'A'] },
      { name: 'Weird', type: 'Colour' },
      { name: 'Weird2', type: 9 },
      { name: '', type: 1 },
    ];
    for (const body of cases) {
      const res = await fx.a.api.post('/v1/contact-property-definitions', body);
      assert.equal(res.status, 400, JSON.stringify(body));
    }
    assert.equal((await fx.a.api.get('/v1/contact-property-definitions')).body.length, 2, 'nothing written');
  });

  it('updates name, required flag and options; type is immutable; an option in use cannot go', async () => {
    const def = (await fx.a.api.post('/v1/contact-property-definitions', { name: 'Plan', type: 3, selectOptions: ['Free', 'Pro', 'Team'] }))
      .body;
    const contact = (await fx.a.api.post('/v1/contacts', { name: 'P', phoneNumber: '+14155550160' })).body;
    await fx.a.api.put(`/v1/contacts/${contact.id}/properties/${def.id}`, { value: 'Pro' });
    const typeChange = await fx.a.api.put(`/v1/contact-property-definitions/${def.id}`, { type: 1 });
    assert.equal(typeChange.status, 400);
    assert.equal(typeChange.body.error.code, 'ContactProperties:TypeImmutable');
    const inUse = await fx.a.api.put(`/v1/contact-property-definitions/${def.id}`, { selectOptions: ['Free', 'Team'] });
    assert.equal(inUse.status, 400);
    assert.equal(inUse.body.message, "Cannot remove option 'Pro': 1 contact holds it.");
    const ok = await fx.a.api.put(`/v1/contact-property-definitions/${def.id}`, {
      name: 'Subscription',
      isRequired: true,
      selectOptions: ['Pro', 'Team', 'Enterprise'],
    });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.name, 'Subscription');
    assert.equal(ok.body.key, 'subscription');
    assert.equal(ok.body.isRequired, true);
    assert.deepEqual(ok.body.selectOptions, ['Pro', 'Team', 'Enterprise']);
    assert.equal((await fx.b.api.put(`/v1/contact-property-definitions/${def.id}`, { name: 'Hijack' })).status, 404);
  });

  it('deletes a definition and its values with it', async () => {
    const def = (await fx.a.api.post('/v1/contact-property-definitions', { name: 'Temp', type: 1 })).body;
    const contact = (await fx.a.api.post('/v1/contacts', { name: 'T', phoneNumber: '+14155550161' })).body;
    await fx.a.api.put(`/v1/contacts/${contact.id}/properties/${def.id}`, { value: 'x' });
    assert.equal((await fx.b.api.delete(`/v1/contact-property-definitions/${def.id}`)).status, 404);
    assert.equal((await fx.a.api.delete(`/v1/contact-property-definitions/${def.id}`)).status, 204);
    const after = await fx.a.api.get(`/v1/contacts/${contact.id}`);
    assert.ok(!after.body.customProperties.some((p: { propertyDefinitionId: string }) => p.propertyDefinitionId === def.id));
    assert.equal((await fx.a.api.delete(`/v1/contact-property-definitions/${def.id}`)).status, 404);
  });

  it('computes statistics for Select, Number, Date and Text, over all contacts or a filtered subset', async () => {
    const tier = (
      await fx.a.api.post('/v1/contact-property-definitions', { name: 'Tier', type: 3, selectOptions: ['Gold', 'Silver', 'Bronze'] })
    ).body;
    const spend = (await fx.a.api.post('/v1/contact-property-definitions', { name: 'Spend', type: 2 })).body;
    const since = (await fx.a.api.post('/v1/contact-property-definitions', { name: 'Since', type: 4 })).body;
    const city = (await fx.a.api.post('/v1/contact-property-definitions', { name: 'City', type: 1 })).body;
    const rows = [
      ['+14155550170', 'Gold', 100, '2020-01-01', 'Riyadh'],
      ['+14155550171', 'Gold', 50.5, '2021-06-01', 'Riyadh'],
      ['+14155550172', 'Silver', 10, '2019-03-15', 'Jeddah'],
    ] as const;
    for (const [phone, t1, s, d, c] of rows) {
      const contact = (await fx.a.api.post('/v1/contacts', { name: `S ${phone}`, phoneNumber: phone })).body;
      await fx.a.api.put(`/v1/contacts/${contact.id}/properties/${tier.id}`, { value: t1 });
      await fx.a.api.put(`/v1/contacts/${contact.id}/properties/${spend.id}`, { value: s });
      await fx.a.api.put(`/v1/contacts/${contact.id}/properties/${since.id}`, { value: d });
      await fx.a.api.put(`/v1/contacts/${contact.id}/properties/${city.id}`, { value: c });
    }
    const total = (await fx.a.api.get('/v1/contacts?MaxResultCount=1')).body.totalCount;
    const select = (await fx.a.api.get(`/v1/contact-property-definitions/${tier.id}/statistics`)).body;
    assert.equal(select.totalContacts, total);
    assert.equal(select.withValue, 3);
    assert.equal(select.withoutValue, total - 3);
    assert.deepEqual(select.values, [
      { value: 'Gold', count: 2 },
      { value: 'Silver', count: 1 },
      { value: 'Bronze', count: 0 },
    ]);
    const number = (await fx.a.api.get(`/v1/contact-property-definitions/${spend.id}/statistics`)).body;
    assert.deepEqual([number.min, number.max, number.sum, number.average], [10, 100, 160.5, 53.5]);
    assert.equal(number.earliest, null);
    const date = (await fx.a.api.get(`/v1/contact-property-definitions/${since.id}/statistics`)).body;
    assert.deepEqual([date.earliest, date.latest], ['2019-03-15T00:00:00.000', '2021-06-01T00:00:00.000']);
    const text = (await fx.a.api.get(`/v1/contact-property-definitions/${city.id}/statistics`)).body;
    assert.deepEqual(text.values, [
      { value: 'Riyadh', count: 2 },
      { value: 'Jeddah', count: 1 },
    ]);
    const subset = await fx.a.api.post(`/v1/contact-property-definitions/${spend.id}/statistics`, {
      customPropertyFilters: [{ propertyDefinitionId: tier.id, operator: 1, value: 'Gold' }],
    });
    assert.equal(subset.status, 200, subset.text);
    assert.deepEqual([subset.body.totalContacts, subset.body.withValue, subset.body.sum], [2, 2, 150.5]);
    assert.equal((await fx.b.api.get(`/v1/contact-property-definitions/${tier.id}/statistics`)).status, 404);
  });

  it('answers statistics over another workspace’s tag or property ids with a 404, as Search Contacts does', async () => {
    const spend = (await fx.a.api.post('/v1/contact-property-definitions', { name: 'Orders', type: 2 })).body;
    const foreignTag = (await fx.b.api.post('/v1/tags/service-account', { name: 'B only' })).body;
    const foreignProperty = (await fx.b.api.post('/v1/contact-property-definitions', { name: 'B prop', type: 2 })).body;
    const ownTag = (await fx.a.api.post('/v1/tags/service-account', { name: 'A tag' })).body;
    const byTag = { tagIds: [ownTag.id, foreignTag.id] };
    const byProperty = { customPropertyFilters: [{ propertyDefinitionId: foreignProperty.id, operator: 9 }] };
    for (const [criteria, code] of [
      [byTag, 'Tags:TagNotFound'],
      [byProperty, 'ContactProperties:PropertyNotFound'],
    ] as const) {
      const statistics = await fx.a.api.post(`/v1/contact-property-definitions/${spend.id}/statistics`, criteria);
      const search = await fx.a.api.post('/v1/contacts/search', criteria);
      assert.equal(statistics.status, 404, statistics.text);
      assert.equal(search.status, 404, search.text);
      assert.equal(statistics.body.error.code, search.body.error.code);
      assert.equal(statistics.body.error.code, code);
    }
    const own = await fx.a.api.post(`/v1/contact-property-definitions/${spend.id}/statistics`, { tagIds: [ownTag.id] });
    assert.equal(own.status, 200, own.text);
    assert.equal(own.body.totalContacts, 0);
  });

  it('imports vCards 2.1, 3.0 and 4.0, reports bad cards by index, and never overwrites an existing number', async () => {
    const existing = (await fx.a.api.post('/v1/contacts', { name: 'Already here', phoneNumber: '+966501234567' })).body;
    const cards = [
      'BEGIN:VCARD\nVERSION:3.0\nN:Doe;John;;;\nFN:John Doe\nORG:Acme;Sales\nTITLE:CTO\nTEL;type=CELL;waid=14155550180:+1 415 555 0180\nTEL:+1 415 555 0999\nEMAIL:john@acme.example\nEND:VCARD',
      'BEGIN:VCARD\r\nVERSION:2.1\r\nN:Smith;Ann\r\nTEL;CELL:+14155550181\r\nEND:VCARD',
      'BEGIN:VCARD\nVERSION:4.0\nFN:Zed\nTEL;VALUE=uri;TYPE=cell:tel:+44-20-7946-0958\nEND:VCARD',
      'not a vcard at all',
      'BEGIN:VCARD\nVERSION:3.0\nFN:No Phone\nEND:VCARD',
      'BEGIN:VCARD\nVERSION:3.0\nFN:Existing\nTEL:+966 50 123 4567\nEND:VCARD',
      'BEGIN:VCARD\nVERSION:3.0\nFN:Bad Number\nTEL:12345\nEND:VCARD',
    ];
    const res = await fx.a.api.post('/v1/contacts/import/vcards', { VCards: cards });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.totalCount, 7);
    assert.equal(res.body.createdCount, 3);
    assert.equal(res.body.existingCount, 1);
    assert.equal(res.body.failedCount, 3);
    assert.deepEqual(
      res.body.errors.map((e: { index: number }) => e.index),
      [3, 4, 6],
    );
    assert.equal(res.body.contactIds.length, 4);
    assert.equal(res.body.contactIds[3], existing.id);
    const john = (await fx.a.api.get(`/v1/contacts/${res.body.contactIds[0]}`)).body;
    assert.deepEqual(
      [john.name, john.phoneNumber, john.email, john.company, john.position],
      ['John Doe', '+14155550180', 'john@acme.example', 'Acme', 'CTO'],
    );
    const ann = (await fx.a.api.get(`/v1/contacts/${res.body.contactIds[1]}`)).body;
    assert.deepEqual([ann.name, ann.phoneNumber], ['Ann Smith', '+14155550181']);
    const zed = (await fx.a.api.get(`/v1/contacts/${res.body.contactIds[2]}`)).body;
    assert.equal(zed.phoneNumber, '+442079460958');
    assert.equal((await fx.a.api.get(`/v1/contacts/${existing.id}`)).body.name, 'Already here', 'not overwritten');
    const history = (await fx.a.api.get(`/v1/contacts/${john.id}/history`)).body.items;
    assert.ok(history.some((e: { propertyName: string; newValue: string }) => e.propertyName === 'Name' && e.newValue === 'John Doe'));
    assert.equal((await fx.a.api.post('/v1/contacts/import/vcards', { vCards: [] })).status, 400);
  });

  it('imports 10,000 vCards in one request', async () => {
    const cards = Array.from(
      { length: 10_000 },
      (_, i) =>
        `BEGIN:VCARD\nVERSION:3.0\nFN:Bulk ${i}\nTEL;type=CELL;waid=1646555${String(i).padStart(4, '0')}:+1 646 555 ${String(i).padStart(4, '0')}\nEND:VCARD`,
    );
    const started = Date.now();
    const res = await fx.a.api.post('/v1/contacts/import/vcards', { vCards: cards });
    const took = Date.now() - started;
    assert.equal(res.status, 200, res.text.slice(0, 500));
    assert.equal(res.body.createdCount + res.body.existingCount, 10_000 - res.body.failedCount);
    assert.ok(
      res.body.createdCount > 9_000,
      `${res.body.createdCount} created, ${res.body.failedCount} failed: ${JSON.stringify(res.body.errors.slice(0, 3))}`,
    );
    console.log(`10,000 vCards imported in ${took} ms`);
  });
});
