import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeWithApp } from '../support/describe-with-app.js';
import { DataSource } from 'typeorm';
import { type WorkspaceFixture } from '../support/fixtures.js';

const NO_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/;
const CONTACT_FIELDS = [
  'company',
  'contactType',
  'creationTime',
  'creatorId',
  'customFields',
  'customProperties',
  'email',
  'id',
  'lastModificationTime',
  'lastModifierId',
  'name',
  'notes',
  'phoneNumber',
  'position',
  'whatsAppParentUserId',
  'whatsAppUserId',
  'whatsAppUsername',
  'workspaceId',
];

describeWithApp(
  'Contacts and Set Property Value on Contact (specification rules 1-6)',
  { env: { RATE_LIMIT_REQUESTS_PER_MINUTE: '100000' } },
  (fx) => {
    let status: { id: string };
    let score: { id: string };
    let birthday: { id: string };
    let nickname: { id: string };
    let tier: { id: string };

    const newContact = async (ws: WorkspaceFixture, phoneNumber: string, extra: Record<string, unknown> = {}) => {
      const res = await ws.api.post('/v1/contacts', { name: `Contact ${phoneNumber}`, phoneNumber, ...extra });
      assert.equal(res.status, 200, res.text);
      return res.body;
    };
    const setValue = (ws: WorkspaceFixture, contactId: string, propertyId: string, value: unknown) =>
      ws.api.put(`/v1/contacts/${contactId}/properties/${propertyId}`, { value });
    const historyOf = async (ws: WorkspaceFixture, contactId: string) =>
      (await ws.api.get(`/v1/contacts/${contactId}/history?MaxResultCount=1000`)).body;

    before(async () => {
      const define = async (body: Record<string, unknown>) => {
        const res = await fx.a.api.post('/v1/contact-property-definitions', body);
        assert.equal(res.status, 200, res.text);
        return res.body;
      };
      status = await define({
        Name: 'Status',
        Type: 'Select',
        IsRequired: true,
        SelectOptions: ['Lead', { value: 'Customer', color: '#00aa00' }],
      });
      score = await define({ name: 'Score', type: 2 });
      birthday = await define({ name: 'Birthday', type: 4 });
      nickname = await define({ name: 'Nickname', type: 'text' });
      tier = await define({ name: 'Tier', type: 3, selectOptions: ['Gold', 'Silver'] });
    });

    it('creates a contact with every field of the specification’s Contact', async () => {
      const contact = await newContact(fx.a, '966 50 123 4567', { email: 'ann@example.com', note: 'Met at the fair' });
      assert.deepEqual(Object.keys(contact).sort(), CONTACT_FIELDS);
      assert.equal(contact.phoneNumber, '+966501234567');
      assert.equal(contact.workspaceId, fx.a.workspaceId);
      assert.equal(contact.contactType, 1);
      assert.equal(contact.company, null);
      assert.equal(contact.position, null);
      assert.equal(contact.customFields, null);
      assert.deepEqual(contact.customProperties, []);
      assert.match(contact.creationTime, NO_OFFSET);
      assert.match(contact.lastModificationTime, NO_OFFSET);
      assert.equal(contact.creatorId, fx.a.serviceAccountId);
      assert.equal(contact.notes.length, 1);
      assert.equal(contact.notes[0].text, 'Met at the fair');
      assert.equal(contact.notes[0].creatorName, 'integration');
      assert.match(contact.notes[0].creationTime, NO_OFFSET);
      const plain = await newContact(fx.a, '+14155550100');
      assert.deepEqual(plain.notes, [], 'notes is an empty array when there are none');
    });

    it('rule 1: adds a new entry, then updates it in place', async () => {
      const contact = await newContact(fx.a, '+14155550101');
      const added = await setValue(fx.a, contact.id, score.id, 12.5);
      assert.equal(added.status, 200, added.text);
      assert.deepEqual(Object.keys(added.body).sort(), CONTACT_FIELDS);
      assert.deepEqual(added.body.customProperties, [
        {
          propertyDefinitionId: score.id,
          propertyName: 'Score',
          propertyType: 2,
          textValue: null,
          numberValue: 12.5,
          dateValue: null,
          selectValue: null,
        },
      ]);
      const updated = await setValue(fx.a, contact.id, score.id, '40');
      assert.equal(updated.body.customProperties.length, 1, 'updated in place, not a second entry');
      assert.equal(updated.body.customProperties[0].numberValue, 40);
      const rows = await fx.t.app
        .get(DataSource)
        .query('SELECT count(*)::int AS n FROM contact_property_values WHERE contact_id = $1', [contact.id]);
      assert.equal(rows[0].n, 1);
    });

    it('holds each type in its own field, the others null', async () => {
      const contact = await newContact(fx.a, '+14155550102');
      await setValue(fx.a, contact.id, status.id, 'Customer');
      await setValue(fx.a, contact.id, birthday.id, '1990-04-01');
      await setValue(fx.a, contact.id, nickname.id, 'Annie');
      const res = await fx.a.api.get(`/v1/contacts/${contact.id}`);
      const byName = Object.fromEntries(res.body.customProperties.map((p: { propertyName: string }) => [p.propertyName, p]));
      assert.deepEqual(byName.Status, {
        propertyDefinitionId: status.id,
        propertyName: 'Status',
        propertyType: 3,
        textValue: null,
        numberValue: null,
        dateValue: null,
        selectValue: 'Customer',
      });
      assert.deepEqual(byName.Birthday, {
        propertyDefinitionId: birthday.id,
        propertyName: 'Birthday',
        propertyType: 4,
        textValue: null,
        numberValue: null,
        dateValue: '1990-04-01T00:00:00.000',
        selectValue: null,
      });
      assert.deepEqual(byName.Nickname, {
        propertyDefinitionId: nickname.id,
        propertyName: 'Nickname',
        propertyType: 1,
        textValue: 'Annie',
        numberValue: null,
        dateValue: null,
        selectValue: null,
      });
    });

    it('rule 2: null removes the entry entirely', async () => {
      const contact = await newContact(fx.a, '+14155550103');
      await setValue(fx.a, contact.id, nickname.id, 'Bob');
      const res = await setValue(fx.a, contact.id, nickname.id, null);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.customProperties, []);
      await setValue(fx.a, contact.id, score.id, 7);
      const deleted = await fx.a.api.delete(`/v1/contacts/${contact.id}/properties/${score.id}`);
      assert.equal(deleted.status, 200, 'Delete Property Value on Contact removes it too');
      assert.deepEqual(deleted.body.customProperties, []);
      const rows = await fx.t.app
        .get(DataSource)
        .query('SELECT count(*)::int AS n FROM contact_property_values WHERE contact_id = $1', [contact.id]);
      assert.equal(rows[0].n, 0);
    });

    it('rule 3: a required property set to null fails with the specification’s message', async () => {
      const contact = await newContact(fx.a, '+14155550104');
      await setValue(fx.a, contact.id, status.id, 'Lead');
      const res = await setValue(fx.a, contact.id, status.id, null);
      assert.equal(res.status, 400);
      assert.equal(res.body.message, "Property 'Status' is required.");
      assert.equal(res.body.error.code, 'Contacts:PropertyRequired');
      assert.equal(res.body.error.message, "Property 'Status' is required.");
      const del = await fx.a.api.delete(`/v1/contacts/${contact.id}/properties/${status.id}`);
      assert.equal(del.status, 400);
      assert.equal(del.body.message, "Property 'Status' is required.");
      const after = await fx.a.api.get(`/v1/contacts/${contact.id}`);
      assert.equal(after.body.customProperties[0].selectValue, 'Lead', 'nothing written');
    });

    it('rule 4: a Select value outside selectOptions fails with the specification’s message', async () => {
      const contact = await newContact(fx.a, '+14155550105');
      const res = await setValue(fx.a, contact.id, status.id, 'Prospect');
      assert.equal(res.status, 400);
      assert.equal(res.body.message, "Invalid select option 'Prospect' for property 'Status'.");
      assert.equal(res.body.error.code, 'Contacts:InvalidSelectOption');
      const caseDiffers = await setValue(fx.a, contact.id, status.id, 'lead');
      assert.equal(caseDiffers.body.message, "Invalid select option 'lead' for property 'Status'.");
      assert.deepEqual((await fx.a.api.get(`/v1/contacts/${contact.id}`)).body.customProperties, []);
    });

    it('rule 5: Text, Number and Date need nothing beyond being readable as their type', async () => {
      const contact = await newContact(fx.a, '+14155550106');
      assert.equal((await setValue(fx.a, contact.id, nickname.id, '')).status, 200, 'an empty text is a text');
      assert.equal((await setValue(fx.a, contact.id, score.id, -0.001)).status, 200);
      assert.equal((await setValue(fx.a, contact.id, birthday.id, '2026-03-01T14:47:18.501+02:00')).status, 200);
      const got = (await fx.a.api.get(`/v1/contacts/${contact.id}`)).body.customProperties;
      assert.equal(got.find((p: { propertyName: string }) => p.propertyName === 'Birthday').dateValue, '2026-03-01T12:47:18.501');
      const missing = await fx.a.api.put(`/v1/contacts/${contact.id}/properties/${score.id}`, {});
      assert.equal(missing.status, 400, 'a body without value removes nothing');
      assert.equal(missing.body.error.code, 'Contacts:ValueMissing');
      for (const [property, value] of [
        [score, 'twelve'],
        [score, { n: 1 }],
        [score, true],
        [birthday, 'next tuesday'],
        [birthday, '2026-13-45'],
        [nickname, 42],
      ] as const) {
        const res = await setValue(fx.a, contact.id, property.id, value);
        assert.equal(res.status, 400, `${JSON.stringify(value)} → ${res.status}`);
        assert.equal(res.body.error.code, 'Contacts:InvalidPropertyValue');
      }
    });

    it('rule 6: every actual change is in the history, re-setting the same value is not', async () => {
      const contact = await newContact(fx.a, '+14155550107', { email: 'h@example.com' });
      await setValue(fx.a, contact.id, score.id, 10);
      await setValue(fx.a, contact.id, score.id, '10.0');
      await setValue(fx.a, contact.id, score.id, 11);
      await setValue(fx.a, contact.id, tier.id, 'Gold');
      await setValue(fx.a, contact.id, tier.id, 'Gold');
      await setValue(fx.a, contact.id, tier.id, null);
      await setValue(fx.a, contact.id, tier.id, null);
      const history = await historyOf(fx.a, contact.id);
      const custom = history.items.filter((e: { propertyDefinitionId: string | null }) => e.propertyDefinitionId !== null);
      assert.deepEqual(
        custom.map((e: { propertyName: string; oldValue: string | null; newValue: string | null }) => [
          e.propertyName,
          e.oldValue,
          e.newValue,
        ]),
        [
          ['Tier', 'Gold', null],
          ['Tier', null, 'Gold'],
          ['Score', '10', '11'],
          ['Score', null, '10'],
        ],
        'newest first, no entry for the repeated values',
      );
      const builtIn = history.items.filter((e: { propertyDefinitionId: string | null }) => e.propertyDefinitionId === null);
      assert.deepEqual(builtIn.map((e: { propertyName: string }) => e.propertyName).sort(), [
        'ContactType',
        'Email',
        'Name',
        'PhoneNumber',
      ]);
      assert.ok(builtIn.every((e: { oldValue: null }) => e.oldValue === null));
      const entry = history.items[0];
      assert.deepEqual(Object.keys(entry).sort(), [
        'creationTime',
        'creatorId',
        'id',
        'newValue',
        'oldValue',
        'propertyDefinitionId',
        'propertyName',
      ]);
      assert.match(entry.creationTime, NO_OFFSET);
      assert.equal(entry.creatorId, fx.a.serviceAccountId);
    });

    it('records updates of built-in fields and appends notes, changing only what the body names', async () => {
      const contact = await newContact(fx.a, '+14155550108', { company: 'Acme' });
      const res = await fx.a.api.put(`/v1/contacts/${contact.id}`, { Position: 'CTO', note: 'Promoted' });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.company, 'Acme', 'absent fields keep their value');
      assert.equal(res.body.position, 'CTO');
      assert.equal(res.body.notes.length, 1);
      const again = await fx.a.api.put(`/v1/contacts/${contact.id}`, { position: 'CTO' });
      assert.equal(again.status, 200);
      const history = await historyOf(fx.a, contact.id);
      assert.deepEqual(
        history.items
          .filter((e: { propertyName: string }) => e.propertyName === 'Position')
          .map((e: { oldValue: string; newValue: string }) => [e.oldValue, e.newValue]),
        [[null, 'CTO']],
      );
    });

    it('updates lastModificationTime and lastModifierId when a value is set', async () => {
      const contact = await newContact(fx.a, '+14155550109');
      await new Promise((resolve) => setTimeout(resolve, 20));
      const res = await setValue(fx.a, contact.id, nickname.id, 'Zed');
      assert.ok(res.body.lastModificationTime > contact.lastModificationTime);
      assert.equal(res.body.lastModifierId, fx.a.serviceAccountId);
    });

    it('keeps one entry and a matching history under concurrent sets', async () => {
      const contact = await newContact(fx.a, '+14155550110');
      const values = Array.from({ length: 12 }, (_, i) => i + 1);
      const results = await Promise.all(values.map((v) => setValue(fx.a, contact.id, score.id, v)));
      assert.ok(results.every((r) => r.status === 200));
      const rows = await fx.t.app
        .get(DataSource)
        .query('SELECT number_value FROM contact_property_values WHERE contact_id = $1', [contact.id]);
      assert.equal(rows.length, 1);
      const history = (await historyOf(fx.a, contact.id)).items.filter((e: { propertyName: string }) => e.propertyName === 'Score');
      assert.equal(history.length, 12);
      assert.equal(history[0].newValue, String(Number(rows[0].number_value)), 'the newest entry is the final value');
      for (let i = 0; i < history.length - 1; i++) assert.equal(history[i].oldValue, history[i + 1].newValue, 'an unbroken chain');
    });

    it('answers 404 for unknown, malformed and foreign contact and property ids, writing nothing', async () => {
      const mine = await newContact(fx.a, '+14155550111');
      const theirs = await newContact(fx.b, '+14155550111');
      const foreignProperty = (await fx.b.api.post('/v1/contact-property-definitions', { name: 'Secret', type: 1 })).body;
      const cases = [
        [theirs.id, nickname.id, 'Contacts:ContactNotFound'],
        [mine.id, foreignProperty.id, 'ContactProperties:PropertyNotFound'],
        ['0190a1b2-0000-7000-8000-000000000000', nickname.id, 'Contacts:ContactNotFound'],
        [mine.id, 'not-a-uuid', 'ContactProperties:Property:NotFound'],
      ];
      for (const [contactId, propertyId, code] of cases) {
        const res = await setValue(fx.a, contactId, propertyId, 'x');
        assert.equal(res.status, 404, `${contactId}/${propertyId}`);
        assert.equal(res.body.error.code, code);
      }
      assert.equal((await fx.a.api.get(`/v1/contacts/${theirs.id}`)).status, 404);
      assert.equal((await fx.a.api.put(`/v1/contacts/${theirs.id}`, { name: 'x' })).status, 404);
      assert.equal((await fx.a.api.delete(`/v1/contacts/${theirs.id}`)).status, 404);
      assert.equal((await fx.a.api.get(`/v1/contacts/${theirs.id}/history`)).status, 404);
      assert.equal((await fx.b.api.get(`/v1/contacts/${theirs.id}`)).body.name, theirs.name, 'B’s contact untouched');
    });

    it('refuses bad contact input with a 4xx and writes nothing', async () => {
      const before = (await fx.a.api.get('/v1/contacts?MaxResultCount=1')).body.totalCount;
      const duplicate = await fx.a.api.post('/v1/contacts', { name: 'Dup', phoneNumber: '+966 501234567' });
      assert.equal(duplicate.status, 409);
      assert.equal(duplicate.body.error.code, 'Contacts:DuplicatePhoneNumber');
      for (const body of [
        { phoneNumber: '+14155550199' },
        { name: 'No phone' },
        { name: 'Bad', phoneNumber: '123' },
        { name: 'x', phoneNumber: '+14155550198', email: 'nope' },
        { name: 'x', phoneNumber: '+14155550197', contactType: 7 },
        // A member name of the integer enum, which class-validator's IsEnum let through to the database.
        { name: 'x', phoneNumber: '+14155550196', contactType: 'Individual' },
      ]) {
        const res = await fx.a.api.post('/v1/contacts', body);
        assert.equal(res.status, 400, JSON.stringify(body));
      }
      assert.equal((await fx.a.api.get('/v1/contacts?MaxResultCount=1')).body.totalCount, before);
      assert.equal((await fx.a.api.get('/v1/contacts?MaxResultCount=1001')).status, 400);
    });

    it('lists, filters and sorts contacts of the workspace only', async () => {
      await newContact(fx.b, '+14155550150', { name: 'Zoe Beta' });
      const res = await fx.a.api.get('/v1/contacts?Filter=contact%20%2B1415555010&Sorting=Name%20DESC&MaxResultCount=5');
      assert.equal(res.status, 200, res.text);
      assert.ok(res.body.totalCount >= 10);
      assert.equal(res.body.items.length, 5);
      const names = res.body.items.map((c: { name: string }) => c.name);
      assert.deepEqual(names, [...names].sort().reverse());
      assert.ok(res.body.items.every((c: { workspaceId: string }) => c.workspaceId === fx.a.workspaceId));
      const byName = await fx.a.api.get('/v1/contacts?Name=CONTACT%20966%2050');
      assert.deepEqual(
        byName.body.items.map((c: { phoneNumber: string }) => c.phoneNumber),
        ['+966501234567'],
      );
      const byPhone = await fx.a.api.get('/v1/contacts?PhoneNumber=966501234567');
      assert.equal(byPhone.body.totalCount, 1);
      for (const digitless of ['abc', '%2B', '(-)']) {
        const refused = await fx.a.api.get(`/v1/contacts?PhoneNumber=${digitless}`);
        assert.equal(refused.status, 400, `PhoneNumber=${digitless}: ${refused.text}`);
        assert.equal(refused.body.error.code, 'Request:ValidationFailed');
        assert.deepEqual(refused.body.error.validationErrors, [
          { message: 'phoneNumber must contain at least one digit', members: ['phoneNumber'] },
        ]);
      }
      const blank = await fx.a.api.get('/v1/contacts?PhoneNumber=&MaxResultCount=1');
      assert.equal(blank.body.totalCount, (await fx.a.api.get('/v1/contacts?MaxResultCount=1')).body.totalCount, 'blank is no filter');
      const pastTheEnd = await fx.a.api.get('/v1/contacts?Filter=contact%20%2B1415555010&SkipCount=1000');
      assert.deepEqual(pastTheEnd.body.items, []);
      assert.equal(pastTheEnd.body.totalCount, res.body.totalCount, 'the total holds past the last page');
      const everyone = (await fx.a.api.get('/v1/contacts?MaxResultCount=1')).body.totalCount;
      const doomed = await newContact(fx.a, '+14155550159');
      assert.equal((await fx.a.api.get('/v1/contacts?MaxResultCount=1')).body.totalCount, everyone + 1);
      assert.equal((await fx.a.api.delete(`/v1/contacts/${doomed.id}`)).status, 204);
      assert.equal((await fx.a.api.get(`/v1/contacts/${doomed.id}`)).status, 404);
      assert.equal((await fx.a.api.get('/v1/contacts?MaxResultCount=1')).body.totalCount, everyone, 'the maintained count follows deletes');
      const mover = await newContact(fx.a, '+14155550158');
      const taken = await fx.a.api.put(`/v1/contacts/${mover.id}`, { phoneNumber: '+966501234567' });
      assert.equal(taken.status, 409, 'moving to a number already in the workspace');
      const badSort = await fx.a.api.get('/v1/contacts?Sorting=Password');
      assert.equal(badSort.status, 400);
    });

    it('searches by typed custom property filters, AND-ed', async () => {
      const gold = await newContact(fx.a, '+14155550120');
      await setValue(fx.a, gold.id, tier.id, 'Gold');
      await setValue(fx.a, gold.id, score.id, 90);
      const silver = await newContact(fx.a, '+14155550121');
      await setValue(fx.a, silver.id, tier.id, 'Silver');
      await setValue(fx.a, silver.id, score.id, 95);
      const search = (filters: unknown[]) => fx.a.api.post('/v1/contacts/search', { maxResultCount: 100, customPropertyFilters: filters });
      const ids = (res: { body: { items: Array<{ id: string }> } }) => res.body.items.map((c) => c.id).sort();
      assert.deepEqual(ids(await search([{ propertyDefinitionId: tier.id, operator: 1, value: 'Gold' }])), [gold.id]);
      assert.deepEqual(ids(await search([{ propertyDefinitionId: score.id, operator: 6, value: 90 }])), [gold.id, silver.id].sort());
      assert.deepEqual(
        ids(
          await search([
            { propertyDefinitionId: score.id, operator: 5, value: '90' },
            { propertyDefinitionId: tier.id, operator: 9 },
          ]),
        ),
        [silver.id],
      );
      const none = await search([{ propertyDefinitionId: tier.id, operator: 10 }]);
      assert.ok(!ids(none).includes(gold.id) && !ids(none).includes(silver.id));
      const misfit = await search([{ propertyDefinitionId: tier.id, operator: 5, value: 'Gold' }]);
      assert.equal(misfit.status, 400);
      assert.equal(misfit.body.error.code, 'Contacts:InvalidSearchFilter');
      const text = await fx.a.api.post('/v1/contacts/search', {
        customPropertyFilters: [{ propertyDefinitionId: nickname.id, operator: 3, value: 'ANN' }],
      });
      assert.ok(
        text.body.items.every((c: { customProperties: Array<{ textValue: string }> }) =>
          c.customProperties.some((p) => /ann/i.test(p.textValue ?? '')),
        ),
      );
    });

    it('reads a page of contacts in a fixed number of queries, whatever its size', async () => {
      const dataSource = fx.t.app.get(DataSource);
      const logger = dataSource.logger;
      let queries = 0;
      const original = logger.logQuery.bind(logger);
      // The outbox relay and the WhatsApp intake poll in the background (their transactions and selects): not the request's.
      const relayOrTransaction = /outbox_messages|whatsapp_intake|^(START TRANSACTION|COMMIT|ROLLBACK)/i;
      logger.logQuery = (...args: Parameters<typeof original>) => {
        if (!relayOrTransaction.test(args[0])) queries++;
        return original(...args);
      };
      for (let i = 0; i < 110; i++) {
        const contact = await newContact(fx.a, `+1212555${String(1000 + i)}`, { note: `note ${i}` });
        await setValue(fx.a, contact.id, score.id, i);
      }
      try {
        const count = async (size: number) => {
          queries = 0;
          const res = await fx.a.api.get(`/v1/contacts?MaxResultCount=${size}`);
          assert.equal(res.status, 200);
          return { queries, items: res.body.items.length };
        };
        const small = await count(2);
        const large = await count(100);
        assert.equal(large.items, 100);
        assert.equal(
          large.queries,
          small.queries,
          `${large.queries} queries for ${large.items} contacts vs ${small.queries} for ${small.items}`,
        );
      } finally {
        logger.logQuery = original;
      }
    });
  },
);
