import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Principal } from '../../src/auth/principal.js';
import { ChannelType } from '../../src/channels/channel.entity.js';
import { ChannelsModule } from '../../src/channels/channels.module.js';
import { ChannelsService } from '../../src/channels/channels.service.js';
import { ContactPropertiesModule } from '../../src/contact-properties/contact-properties.module.js';
import { ContactPropertiesService } from '../../src/contact-properties/contact-properties.service.js';
import { ContactPropertyType } from '../../src/contact-properties/contact-property-definition.entity.js';
import { ContactsModule } from '../../src/contacts/contacts.module.js';
import { ContactsService } from '../../src/contacts/contacts.service.js';
import { ContactPropertyValues } from '../../src/contacts/contact-property-values.service.js';
import { EntityRows } from '../../src/database/entity-rows.js';
import { OutboundIvrFlowsRepository } from '../../src/outbound-ivr-flows/outbound-ivr-flows.repository.js';
import { OutboundIvrFlowsModule } from '../../src/outbound-ivr-flows/outbound-ivr-flows.module.js';
import { OutboundIvrFlowsService } from '../../src/outbound-ivr-flows/outbound-ivr-flows.service.js';
import { WorkspacesModule } from '../../src/workspaces/workspaces.module.js';
import { WorkspacesService } from '../../src/workspaces/workspaces.service.js';
import { serviceTestModule, type ServiceTestContext } from './support/service-module.js';

/**
 * The hot reads' fixed SQL (EntityRows, `selectEntities`, `findById`) must make the same entities
 * as TypeORM's `find`: the same class, every column converted the same way, soft-deleted rows left out.
 */
describe('Entity rows read by fixed SQL, against TypeORM’s find (service tier)', () => {
  let ctx: ServiceTestContext;
  let principal: Principal;
  let deletedFlowId: string;

  before(async () => {
    ctx = await serviceTestModule([WorkspacesModule, ChannelsModule, ContactPropertiesModule, ContactsModule, OutboundIvrFlowsModule]);
    const { workspace } = await ctx.get(WorkspacesService).create('Rows');
    principal = { serviceAccountId: randomUUID(), workspaceId: workspace.id, scopes: [] };
    const workspaceId = workspace.id;
    const channels = ctx.get(ChannelsService);
    const sandboxChannel = (name: string, phoneNumber: string) =>
      channels.create(workspaceId, { name, type: ChannelType.WhatsApp, phoneNumber, whatsApp: { provider: 'sandbox' } } as never);
    await sandboxChannel('Kept', '+14155550131');
    const gone = await sandboxChannel('Gone', '+14155550132');
    await channels.remove(workspaceId, gone.id);
    const properties = ctx.get(ContactPropertiesService);
    const contacts = ctx.get(ContactsService);
    const propertyValues = ctx.get(ContactPropertyValues);
    const score = await properties.create(workspaceId, principal.serviceAccountId, { name: 'Score', type: ContactPropertyType.Number });
    const since = await properties.create(workspaceId, principal.serviceAccountId, { name: 'Since', type: ContactPropertyType.Date });
    const contact = await contacts.create(principal, { name: 'Rania', phoneNumber: '+966501234567', note: 'Prefers mornings.' });
    await propertyValues.set(principal, contact.id, score.id, 12.5);
    await propertyValues.set(principal, contact.id, since.id, '2026-01-02T03:04:05.678Z');
    const flows = ctx.get(OutboundIvrFlowsService);
    const flow = {
      name: 'Rows',
      startStepId: 'bye',
      steps: [{ id: 'bye', type: 'Hangup', props: {} }],
    } as never;
    await flows.create(workspaceId, flow);
    deletedFlowId = (await flows.create(workspaceId, { ...(flow as object), name: 'Deleted' } as never)).flow.id;
    await flows.remove(workspaceId, deletedFlowId);
  });
  after(() => ctx.close());

  it('makes every workspace entity as find makes it, soft-deleted rows left out', async () => {
    const checked: string[] = [];
    for (const metadata of ctx.dataSource.entityMetadatas) {
      if (!metadata.findColumnWithPropertyName('workspaceId') || !metadata.findColumnWithPropertyName('id')) continue;
      const rows = new EntityRows(metadata);
      const bySql = (
        await ctx.dataSource.query<Array<Record<string, unknown>>>(
          `SELECT ${rows.selectList} FROM ${rows.table} WHERE workspace_id = $1${rows.notDeleted} ORDER BY id`,
          [principal.workspaceId],
        )
      ).map((row) => rows.entityOf(row));
      const byFind = await ctx.dataSource.getRepository(metadata.target).find({
        where: { workspaceId: principal.workspaceId },
        order: { id: 'ASC' },
      });
      assert.deepStrictEqual(bySql, byFind, metadata.name);
      if (byFind.length > 0) checked.push(metadata.name);
    }
    // The seeding above must have given rows to compare, including Date, numeric, JSON and soft-deletable columns.
    for (const name of ['Channel', 'Contact', 'ContactPropertyDefinition', 'ContactPropertyValue', 'ContactNote', 'OutboundIvrFlowHead']) {
      assert.ok(checked.includes(name), `${name} had rows to compare (compared: ${checked.join(', ')})`);
    }
  });

  it('inserts every workspace entity as TypeORM’s insert does: the same columns, each value converted the same way', async () => {
    const checked: string[] = [];
    for (const metadata of ctx.dataSource.entityMetadatas) {
      if (!metadata.findColumnWithPropertyName('workspaceId') || !metadata.findColumnWithPropertyName('id')) continue;
      if (metadata.versionColumn || metadata.discriminatorColumn) continue; // insertOf refuses these
      const rows = new EntityRows(metadata);
      for (const entity of await ctx.dataSource.getRepository(metadata.target).find({ where: { workspaceId: principal.workspaceId } })) {
        const [typeormSql, typeormParams] = ctx.dataSource
          .createQueryBuilder()
          .insert()
          .into(metadata.target)
          .values(entity)
          .getQueryAndParameters();
        const ours = rows.insertOf(entity);
        // TypeORM writes no space before the column list and may ask for generated columns back; the statement is otherwise the same.
        const statement = (sql: string) => sql.replace(/ RETURNING .*$/, '').replace(/\s*\(/g, ' (');
        assert.equal(statement(ours.sql), statement(typeormSql), metadata.name);
        assert.deepStrictEqual(ours.params, typeormParams, metadata.name);
        checked.push(metadata.name);
      }
    }
    for (const name of ['Channel', 'Contact', 'ContactPropertyValue', 'OutboundIvrFlowHead']) {
      assert.ok(checked.includes(name), `${name} had rows to compare (compared: ${[...new Set(checked)].join(', ')})`);
    }
    // An undefined value is left to the column's default, and the text is shared by entities setting the same columns.
    const channelRows = new EntityRows(ctx.dataSource.getMetadata('Channel'));
    const [channel] = await ctx.dataSource.getRepository('Channel').find({ where: { workspaceId: principal.workspaceId } });
    const withoutName = channelRows.insertOf({ ...channel, name: undefined }, 3);
    assert.doesNotMatch(withoutName.sql, /"name"/);
    assert.match(withoutName.sql, /VALUES \(\$3, /);
    assert.equal(withoutName.params.length, channelRows.insertOf(channel).params.length - 1);
  });

  it('findById does not find a soft-deleted row, as findOne does not', async () => {
    // Update Flow locks its head with findById.
    const flow = { name: 'Again', startStepId: 'bye', steps: [{ id: 'bye', type: 'Hangup', props: {} }] } as never;
    await assert.rejects(ctx.get(OutboundIvrFlowsService).update(principal.workspaceId, deletedFlowId, flow), {
      code: 'OutboundIvr:FlowNotFound',
    });
    const [{ deleted }] = await ctx.dataSource.query<Array<{ deleted: boolean }>>(
      'SELECT deletion_time IS NOT NULL AS deleted FROM outbound_ivr_flows WHERE id = $1',
      [deletedFlowId],
    );
    assert.equal(deleted, true, 'the row is still there, soft-deleted');
  });

  it('findById refuses a lock outside a transaction, as TypeORM’s pessimistic lock does', async () => {
    await assert.rejects(
      ctx.get(OutboundIvrFlowsRepository).findById(principal.workspaceId, deletedFlowId, { lock: true }),
      /needs a transaction/,
    );
  });
});
