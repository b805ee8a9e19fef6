import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { randomUUID } from 'node:crypto';
import type { Principal } from '../../src/auth/principal.js';
import { ContactPropertiesModule } from '../../src/contact-properties/contact-properties.module.js';
import { ContactPropertiesService } from '../../src/contact-properties/contact-properties.service.js';
import { ContactPropertyType } from '../../src/contact-properties/contact-property-definition.entity.js';
import { ContactsModule } from '../../src/contacts/contacts.module.js';
import { ContactsService } from '../../src/contacts/contacts.service.js';
import { ContactPropertyValues } from '../../src/contacts/contact-property-values.service.js';
import { WorkspacesModule } from '../../src/workspaces/workspaces.module.js';
import { WorkspacesService } from '../../src/workspaces/workspaces.service.js';
import { serviceTestModule, type ServiceTestContext } from './support/service-module.js';

describe('Set Property Value on Contact (service tier)', () => {
  let ctx: ServiceTestContext;
  let contacts: ContactsService;
  let propertyValues: ContactPropertyValues;
  let properties: ContactPropertiesService;
  let principal: Principal;
  let other: Principal;

  const contactWith = async (owner = principal) =>
    contacts.create(owner, { name: 'Sara', phoneNumber: `+96650${Math.floor(1_000_000 + Math.random() * 8_999_999)}` });
  const history = async (contactId: string, owner = principal) => (await contacts.history(owner.workspaceId, contactId, 0, 100)).items;

  before(async () => {
    ctx = await serviceTestModule([WorkspacesModule, ContactPropertiesModule, ContactsModule]);
    contacts = ctx.get(ContactsService);
    propertyValues = ctx.get(ContactPropertyValues);
    properties = ctx.get(ContactPropertiesService);
    const workspaces = ctx.get(WorkspacesService);
    const a = await workspaces.create('A');
    const b = await workspaces.create('B');
    principal = { serviceAccountId: randomUUID(), workspaceId: a.workspace.id, scopes: [] };
    other = { serviceAccountId: randomUUID(), workspaceId: b.workspace.id, scopes: [] };
  });
  after(() => ctx.close());

  it('adds, updates in place, and removes with null, recording each actual change once', async () => {
    const tier = await properties.create(principal.workspaceId, principal.serviceAccountId, {
      name: 'Tier',
      type: ContactPropertyType.Text,
    });
    const contact = await contactWith();
    await propertyValues.set(principal, contact.id, tier.id, 'gold');
    await propertyValues.set(principal, contact.id, tier.id, 'gold'); // the same value again: no change, no entry
    await propertyValues.set(principal, contact.id, tier.id, 'platinum');
    await propertyValues.set(principal, contact.id, tier.id, null);
    const entries = (await history(contact.id)).filter((e) => e.propertyDefinitionId === tier.id).reverse();
    assert.deepEqual(
      entries.map((e) => [e.oldValue, e.newValue]),
      [
        [null, 'gold'],
        ['gold', 'platinum'],
        ['platinum', null],
      ],
    );
    const values = await ctx.dataSource.query('SELECT count(*)::int AS n FROM contact_property_values WHERE contact_id = $1', [contact.id]);
    assert.equal(values[0].n, 0, 'null removed the row');
  });

  it('refuses null on a required property and a foreign select option, with the specification’s messages and nothing written', async () => {
    const status = await properties.create(principal.workspaceId, principal.serviceAccountId, {
      name: 'Status',
      type: ContactPropertyType.Select,
      isRequired: true,
      selectOptions: [{ value: 'Open' }, { value: 'Won' }],
    });
    const contact = await contactWith();
    await assert.rejects(propertyValues.set(principal, contact.id, status.id, null), { message: "Property 'Status' is required." });
    await assert.rejects(propertyValues.set(principal, contact.id, status.id, 'Lost'), {
      message: "Invalid select option 'Lost' for property 'Status'.",
    });
    assert.equal((await history(contact.id)).filter((e) => e.propertyDefinitionId === status.id).length, 0);
  });

  it('does not reach another workspace’s contact or property', async () => {
    const mine = await properties.create(principal.workspaceId, principal.serviceAccountId, {
      name: 'Mine',
      type: ContactPropertyType.Number,
    });
    const theirs = await contactWith(other);
    await assert.rejects(propertyValues.set(principal, theirs.id, mine.id, 5), { code: 'Contacts:ContactNotFound' });
    await assert.rejects(propertyValues.set(other, theirs.id, mine.id, 5), (err: { code?: string }) => /NotFound/.test(err.code ?? ''));
  });

  it('applies concurrent sets on one contact one after the other: the history chains without gaps', async () => {
    const score = await properties.create(principal.workspaceId, principal.serviceAccountId, {
      name: 'Score',
      type: ContactPropertyType.Number,
    });
    const contact = await contactWith();
    await Promise.all(Array.from({ length: 12 }, (_, i) => propertyValues.set(principal, contact.id, score.id, i + 1)));
    const entries = (await history(contact.id)).filter((e) => e.propertyDefinitionId === score.id).reverse();
    assert.equal(entries.length, 12);
    assert.equal(entries[0].oldValue, null);
    for (let i = 1; i < entries.length; i++)
      assert.equal(entries[i].oldValue, entries[i - 1].newValue, `entry ${i} follows entry ${i - 1}`);
    const [row] = await ctx.dataSource.query('SELECT number_value FROM contact_property_values WHERE contact_id = $1', [contact.id]);
    assert.equal(String(Number(row.number_value)), entries.at(-1)!.newValue);
  });
});
