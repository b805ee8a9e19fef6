import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Principal } from '../../src/auth/principal.js';
import { ChannelType } from '../../src/channels/channel.entity.js';
import { ChannelsService } from '../../src/channels/channels.service.js';
import { ContactsService } from '../../src/contacts/contacts.service.js';
import { EventDirection, EventSourceType } from '../../src/conversations/conversation.entity.js';
import { ConversationsService } from '../../src/conversations/conversations.service.js';
import { TimelineService } from '../../src/conversations/timeline.service.js';
import { StatusService } from '../../src/whatsapp/outbound/status.service.js';
import { WhatsAppModule } from '../../src/whatsapp/whatsapp.module.js';
import { WorkspacesModule } from '../../src/workspaces/workspaces.module.js';
import { WorkspacesService } from '../../src/workspaces/workspaces.service.js';
import { serviceTestModule, type ServiceTestContext } from './support/service-module.js';
import { inTransaction } from '../../src/database/transactions.js';

describe('Conversations and delivery statuses (service tier)', () => {
  let ctx: ServiceTestContext;
  let conversations: ConversationsService;
  let timeline: TimelineService;
  let statuses: StatusService;
  let contacts: ContactsService;
  let principal: Principal;
  let channelId: string;

  const newContact = () =>
    contacts.create(principal, { name: 'Omar', phoneNumber: `+96655${Math.floor(1_000_000 + Math.random() * 8_999_999)}` });

  before(async () => {
    ctx = await serviceTestModule([WorkspacesModule, WhatsAppModule]);
    conversations = ctx.get(ConversationsService);
    timeline = ctx.get(TimelineService);
    statuses = ctx.get(StatusService);
    contacts = ctx.get(ContactsService);
    const { workspace } = await ctx.get(WorkspacesService).create('Acme');
    principal = { serviceAccountId: randomUUID(), workspaceId: workspace.id, scopes: [] };
    const channel = await ctx.get(ChannelsService).create(workspace.id, {
      name: 'Main',
      type: ChannelType.WhatsApp,
      phoneNumber: '+14155550100',
      whatsApp: { provider: 'sandbox' },
    } as never);
    channelId = channel.id;
  });
  after(() => ctx.close());

  it('find-or-open under concurrency: twenty racing callers get one open conversation', async () => {
    const contact = await newContact();
    const opened = await Promise.all(
      Array.from({ length: 20 }, () => inTransaction(() => conversations.findOrOpen(principal.workspaceId, channelId, contact.id))),
    );
    assert.equal(new Set(opened.map((c) => c.id)).size, 1, 'every caller got the same conversation');
    const [{ n }] = await ctx.dataSource.query('SELECT count(*)::int AS n FROM conversations WHERE contact_id = $1', [contact.id]);
    assert.equal(n, 1);
  });

  it('status moves go forward only, and the conversation shows the last event’s status', async () => {
    const contact = await newContact();
    const providerMessageId = `wamid.${randomUUID()}`;
    const event = await inTransaction(async () => {
      const conversation = await conversations.findOrOpenRef(principal.workspaceId, channelId, contact.id);
      return timeline.record(conversation, {
        sourceType: EventSourceType.WhatsApp,
        direction: EventDirection.Outbound,
        status: 'Sent',
        sourceId: providerMessageId,
        body: 'Your order shipped',
      });
    });
    const apply = (status: 'Sent' | 'Delivered' | 'Read' | 'Failed') =>
      statuses.apply(principal.workspaceId, channelId, {
        providerMessageId,
        status,
        at: new Date().toISOString(),
        errorCode: null,
        errorReason: null,
      });
    const current = async () => {
      const [row] = await ctx.dataSource.query(
        `SELECT e.status, c.last_event_status FROM conversation_events e JOIN conversations c ON c.id = e.conversation_id WHERE e.id = $1`,
        [event.id],
      );
      return [row.status, row.last_event_status];
    };
    await apply('Read');
    assert.deepEqual(await current(), ['Read', 'Read']);
    await apply('Delivered'); // late: never backwards
    assert.deepEqual(await current(), ['Read', 'Read']);
    await apply('Failed'); // a failure after Read is stale too
    assert.deepEqual(await current(), ['Read', 'Read']);
    await apply('Sent');
    assert.deepEqual(await current(), ['Read', 'Read']);
  });

  it('statuses applied together: each message moves through its statuses in order, pricing counted once, a webhook per move, unknown ids returned', async () => {
    const hooked = await ctx.get(ChannelsService).create(principal.workspaceId, {
      name: 'Hooked',
      type: ChannelType.WhatsApp,
      phoneNumber: '+14155550101',
      webhookUrl: 'https://hooks.example.com/whatsapp',
      whatsApp: { provider: 'sandbox' },
    } as never);
    const [a, b, c, unknown] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()].map((id) => `wamid.${id}`);
    const contact = await newContact();
    for (const sourceId of [a, b, c]) {
      await inTransaction(async () => {
        const conversation = await conversations.findOrOpenRef(principal.workspaceId, hooked.id, contact.id);
        await timeline.record(conversation, {
          sourceType: EventSourceType.WhatsApp,
          direction: EventDirection.Outbound,
          status: 'Pending',
          sourceId,
        });
      });
    }
    const pricing = { model: 'PMP', type: 'regular', category: 'utility', billable: true };
    const update = (providerMessageId: string, status: 'Sent' | 'Delivered' | 'Read', priced = true) => ({
      providerMessageId,
      status,
      at: '2026-11-20T10:00:00.000Z',
      errorCode: null,
      errorReason: null,
      ...(priced ? { pricing, isBillable: true } : {}),
    });
    const unrecorded = await statuses.applyMany(principal.workspaceId, hooked.id, [
      update(a, 'Sent'),
      update(b, 'Sent'),
      update(a, 'Delivered'),
      update(unknown, 'Delivered'),
      update(a, 'Read', false),
      update(a, 'Delivered'), // again: changes nothing
      // Meta's read before its sent and delivered (they came late): each goes out once, the status stays Read.
      update(c, 'Read'),
      update(c, 'Delivered'),
      update(c, 'Sent'),
      update(c, 'Delivered'),
    ]);
    assert.deepEqual([...unrecorded], [unknown]);
    const rows = await ctx.dataSource.query(
      `SELECT e.source_id, e.status, e.pricing->>'category' AS category, c.last_event_status
         FROM conversation_events e JOIN conversations c ON c.id = e.conversation_id WHERE e.source_id = ANY($1) ORDER BY e.creation_time`,
      [[a, b, c]],
    );
    assert.deepEqual(
      rows.map((r: Record<string, string>) => [r.source_id, r.status, r.category]),
      [
        [a, 'Read', 'utility'],
        [b, 'Sent', 'utility'],
        [c, 'Read', 'utility'],
      ],
    );
    assert.equal(rows[0].last_event_status, 'Read', 'the conversation shows its last event’s status (c)');
    const hooks = await ctx.dataSource.query(
      `SELECT payload->>'providerMessageId' AS id, payload->>'status' AS status FROM webhook_deliveries
        WHERE workspace_id = $1 AND payload->>'channelId' = $2 ORDER BY seq`,
      [principal.workspaceId, hooked.id],
    );
    assert.deepEqual(
      hooks.map((h: Record<string, string>) => `${{ [a]: 'a', [b]: 'b', [c]: 'c' }[h.id]}:${h.status}`),
      ['a:Sent', 'b:Sent', 'c:Read', 'a:Delivered', 'c:Delivered', 'a:Read', 'c:Sent'],
    );
    const [usage] = await ctx.dataSource.query(
      `SELECT sum(messages)::int AS n FROM whatsapp_usage_days WHERE workspace_id = $1 AND channel_id = $2 AND day = '2026-11-20'`,
      [principal.workspaceId, hooked.id],
    );
    assert.equal(usage.n, 3, 'each message counted once, however many statuses carried its pricing');
  });

  it('send outcomes answered together are recorded in one transaction; one that cannot be written fails alone', async () => {
    const hooked = await ctx.get(ChannelsService).create(principal.workspaceId, {
      name: 'Outcomes',
      type: ChannelType.WhatsApp,
      phoneNumber: '+14155550102',
      webhookUrl: 'https://hooks.example.com/outcomes',
      whatsApp: { provider: 'sandbox' },
    } as never);
    const contact = await newContact();
    const pending = async () =>
      inTransaction(async () => {
        const conversation = await conversations.findOrOpenRef(principal.workspaceId, hooked.id, contact.id);
        const event = await timeline.record(conversation, {
          sourceType: EventSourceType.WhatsApp,
          direction: EventDirection.Outbound,
          status: 'Pending',
        });
        return event.id;
      });
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(await pending());
    const sent = (id: string) => ({ status: 'Sent' as const, providerMessageId: `wamid.${id}`, errorCode: null, errorReason: null });
    const channel = await ctx.get(ChannelsService).get(principal.workspaceId, hooked.id);
    const record = (id: string, change: Parameters<StatusService['recordSendOutcome']>[3]) =>
      statuses.recordSendOutcome(principal.workspaceId, channel, id, change);

    // Twelve answers at once, one of them for a message that does not exist.
    const moved = await Promise.all([...ids.map((id) => record(id, sent(id))), record(randomUUID(), sent('gone'))]);
    assert.deepEqual(moved, [...ids.map(() => true), false]);
    const rows = await ctx.dataSource.query(
      `SELECT status, source_id, xmin::text AS tx FROM conversation_events WHERE id = ANY($1::uuid[])`,
      [ids],
    );
    assert.ok(rows.every((r: Record<string, string>) => r.status === 'Sent'));
    assert.deepEqual(rows.map((r: Record<string, string>) => r.source_id).sort(), ids.map((id) => `wamid.${id}`).sort());
    assert.equal(new Set(rows.map((r: Record<string, string>) => r.tx)).size, 1, 'the twelve moves were written by one transaction');
    const hooks = await ctx.dataSource.query(
      `SELECT payload->>'messageId' AS id, payload->>'status' AS status FROM webhook_deliveries
        WHERE workspace_id = $1 AND payload->>'channelId' = $2`,
      [principal.workspaceId, hooked.id],
    );
    assert.equal(hooks.length, 12, 'one webhook a move');
    assert.ok(hooks.every((h: Record<string, string>) => h.status === 'Sent'));

    // A batch with an outcome the database refuses (an error code past its column's 100 characters): the others are still recorded.
    const [good, bad] = [await pending(), await pending()];
    const failed = { status: 'Failed' as const, providerMessageId: null, errorCode: 'x'.repeat(150), errorReason: 'refused' };
    const results = await Promise.allSettled([record(good, sent(good)), record(bad, failed)]);
    assert.equal(results[0].status, 'fulfilled');
    assert.equal(results[0].value, true);
    assert.equal(results[1].status, 'rejected');
    const after = await ctx.dataSource.query(`SELECT id, status FROM conversation_events WHERE id = ANY($1::uuid[])`, [[good, bad]]);
    assert.deepEqual(Object.fromEntries(after.map((r: Record<string, string>) => [r.id, r.status])), { [good]: 'Sent', [bad]: 'Pending' });
  });

  it('a status for another workspace’s message id moves nothing', async () => {
    const { workspace } = await ctx.get(WorkspacesService).create('Other');
    const contact = await newContact();
    const providerMessageId = `wamid.${randomUUID()}`;
    await inTransaction(async () => {
      const conversation = await conversations.findOrOpenRef(principal.workspaceId, channelId, contact.id);
      await timeline.record(conversation, {
        sourceType: EventSourceType.WhatsApp,
        direction: EventDirection.Outbound,
        status: 'Sent',
        sourceId: providerMessageId,
      });
    });
    await assert.rejects(
      statuses.apply(workspace.id, channelId, {
        providerMessageId,
        status: 'Read',
        at: new Date().toISOString(),
        errorCode: null,
        errorReason: null,
      }),
      { code: 'Channels:ChannelNotFound' },
    );
    const [row] = await ctx.dataSource.query('SELECT status FROM conversation_events WHERE source_id = $1', [providerMessageId]);
    assert.equal(row.status, 'Sent');
  });
});
