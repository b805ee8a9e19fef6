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
import { Retention } from '../../src/queue/retention.service.js';
import { SendClaimsRepository } from '../../src/whatsapp/outbound/send-claims.repository.js';
import { SendDelivery } from '../../src/whatsapp/outbound/send-delivery.service.js';
import { WhatsAppModule } from '../../src/whatsapp/whatsapp.module.js';
import { WorkspacesModule } from '../../src/workspaces/workspaces.module.js';
import { WorkspacesService } from '../../src/workspaces/workspaces.service.js';
import { serviceTestModule, type ServiceTestContext } from './support/service-module.js';
import { inTransaction } from '../../src/database/transactions.js';

describe('Send claims: one run of a send asks the provider (service tier)', () => {
  let ctx: ServiceTestContext;
  let claims: SendClaimsRepository;
  let principal: Principal;
  let otherWorkspaceId: string;
  let channelId: string;

  /** An outbound WhatsApp message of the workspace with this status, as a send records it. */
  const message = async (status: string): Promise<string> => {
    const contact = await ctx
      .get(ContactsService)
      .create(principal, { name: 'Layla', phoneNumber: `+96655${Math.floor(1_000_000 + Math.random() * 8_999_999)}` });
    const event = await inTransaction(async () => {
      const conversation = await ctx.get(ConversationsService).findOrOpenRef(principal.workspaceId, channelId, contact.id);
      return ctx.get(TimelineService).record(conversation, {
        sourceType: EventSourceType.WhatsApp,
        direction: EventDirection.Outbound,
        status,
        body: 'Your order shipped',
      });
    });
    return event.id;
  };
  const claimRows = async (eventId: string) =>
    (await ctx.dataSource.query<Array<{ n: number }>>('SELECT count(*)::int AS n FROM send_claims WHERE event_id = $1', [eventId]))[0].n;

  before(async () => {
    ctx = await serviceTestModule([WorkspacesModule, WhatsAppModule]);
    claims = ctx.get(SendClaimsRepository);
    const { workspace } = await ctx.get(WorkspacesService).create('Claims');
    otherWorkspaceId = (await ctx.get(WorkspacesService).create('Other')).workspace.id;
    principal = { serviceAccountId: randomUUID(), workspaceId: workspace.id, scopes: [] };
    const channel = await ctx.get(ChannelsService).create(workspace.id, {
      name: 'Main',
      type: ChannelType.WhatsApp,
      phoneNumber: '+14155550131',
      whatsApp: { provider: 'sandbox' },
    } as never);
    channelId = channel.id;
  });
  after(() => ctx.close());

  it('of ten runs claiming one Pending message at once, exactly one holds it; the others see it Pending and held by that one', async () => {
    const eventId = await message('Pending');
    const runs = Array.from({ length: 10 }, () => randomUUID());
    const results = await Promise.all(runs.map((run) => claims.claim(principal.workspaceId, eventId, run)));
    const winners = runs.filter((run, i) => results[i].holder === run);
    assert.equal(winners.length, 1, 'one holder');
    for (const r of results) {
      assert.equal(r.status, 'Pending');
      // A loser whose statement waited on the winner's insert cannot see it (null); any other sees the winner.
      assert.ok(r.holder === null || r.holder === winners[0], `held by ${String(r.holder)}`);
    }
    // A run that claims later sees who holds it, and since when.
    const late = await claims.claim(principal.workspaceId, eventId, randomUUID());
    assert.equal(late.holder, winners[0]);
    assert.ok(late.since instanceof Date && Date.now() - late.since.getTime() < 60_000, `since ${String(late.since)}`);
    // The holder's own name claiming again (its stalled job run anew) finds the claim its own.
    assert.equal((await claims.claim(principal.workspaceId, eventId, winners[0])).holder, winners[0]);
    assert.equal(await claimRows(eventId), 1);
  });

  it('claims made in one statement: each message claimed by its first run in it, a result per run, in order', async () => {
    const [a, b, sent] = [await message('Pending'), await message('Pending'), await message('Sent')];
    const held = await message('Pending');
    const earlier = randomUUID();
    assert.equal((await claims.claim(principal.workspaceId, held, earlier)).holder, earlier);
    const runs = [a, a, b, sent, held, randomUUID(), a].map((eventId) => ({ eventId, holder: randomUUID() }));
    const results = await claims.claimMany(principal.workspaceId, runs);
    assert.deepEqual(
      results.map((r) => [r.status, r.holder]),
      [
        ['Pending', runs[0].holder], // a: its first run holds it
        ['Pending', null], // a again, in the same statement: held, by a claim this statement cannot see
        ['Pending', runs[2].holder],
        ['Sent', null],
        ['Pending', earlier], // held before by another run
        [undefined, null],
        ['Pending', null],
      ],
    );
    assert.ok(results[4].since instanceof Date, 'since when another run holds it');
    assert.deepEqual([await claimRows(a), await claimRows(b), await claimRows(sent)], [1, 1, 0]);
  });

  it("claims of two workspaces batched together: a statement the database refuses fails only its own workspace's runs", async () => {
    const a = await message('Pending');
    const holder = randomUUID();
    const runs = [
      { workspaceId: principal.workspaceId, eventId: a, holder },
      // Not a uuid: the other workspace's statement fails after this one's claim committed.
      { workspaceId: otherWorkspaceId, eventId: 'not-an-event-id', holder: randomUUID() },
    ];
    const delivery = ctx.get(SendDelivery) as unknown as { claimTogether(r: typeof runs): Promise<unknown[]> };
    const [claimed, refused] = await delivery.claimTogether(runs);
    assert.deepEqual(claimed, { status: 'Pending', holder, since: null });
    assert.ok(refused instanceof Error, String(refused));
    assert.equal(await claimRows(a), 1, 'the committed claim is kept, held by its own run');
    assert.equal((await claims.claim(principal.workspaceId, a, holder)).holder, holder, 'its run finds the claim its own');
  });

  it('a run gives up only its own claim; once given up, the next run claims', async () => {
    const eventId = await message('Pending');
    const [first, other, next] = [randomUUID(), randomUUID(), randomUUID()];
    assert.equal((await claims.claim(principal.workspaceId, eventId, first)).holder, first);
    await claims.release(principal.workspaceId, eventId, other);
    assert.equal((await claims.claim(principal.workspaceId, eventId, other)).holder, first, "another run's name frees nothing");
    await claims.release(otherWorkspaceId, eventId, first);
    assert.equal((await claims.claim(principal.workspaceId, eventId, other)).holder, first, 'another workspace frees nothing');
    await claims.release(principal.workspaceId, eventId, first);
    assert.equal((await claims.claim(principal.workspaceId, eventId, next)).holder, next, 'the next run holds it');
  });

  it('claims nothing for a message that is not Pending, of another workspace, or unknown', async () => {
    const run = randomUUID();
    const sent = await message('Sent');
    assert.deepEqual(await claims.claim(principal.workspaceId, sent, run), { status: 'Sent', holder: null, since: null });
    const scheduled = await message('Scheduled');
    assert.deepEqual(await claims.claim(principal.workspaceId, scheduled, run), { status: 'Scheduled', holder: null, since: null });
    const pending = await message('Pending');
    assert.deepEqual(await claims.claim(otherWorkspaceId, pending, run), { status: undefined, holder: null, since: null });
    assert.deepEqual(await claims.claim(principal.workspaceId, randomUUID(), run), { status: undefined, holder: null, since: null });
    assert.equal((await claimRows(sent)) + (await claimRows(scheduled)) + (await claimRows(pending)), 0, 'no claim was written');
  });

  it('retention deletes the old claims of messages that left Pending, and keeps a Pending message’s and recent ones', async () => {
    const settledOld = await message('Pending');
    const pendingOld = await message('Pending');
    const settledNew = await message('Pending');
    for (const id of [settledOld, pendingOld, settledNew]) assert.ok((await claims.claim(principal.workspaceId, id, randomUUID())).holder);
    await ctx.dataSource.query(`UPDATE conversation_events SET status = 'Sent' WHERE id = ANY($1::uuid[])`, [[settledOld, settledNew]]);
    // Older than the claim's lease (6 min).
    await ctx.dataSource.query(`UPDATE send_claims SET claimed_at = now() - interval '7 minutes' WHERE event_id = ANY($1::uuid[])`, [
      [settledOld, pendingOld],
    ]);
    const { deleted } = await ctx.get(Retention).prune('send_claims');
    assert.ok(deleted >= 1, `deleted ${deleted}`);
    assert.equal(await claimRows(settledOld), 0, 'the old claim of a sent message is gone');
    assert.equal(await claimRows(pendingOld), 1, 'a message still Pending keeps its claim (a late run ends it interrupted)');
    assert.equal(await claimRows(settledNew), 1, 'a recent claim stays');
  });
});
