import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeWithApp } from '../support/describe-with-app.js';
import { createChannel } from '../support/fixtures.js';

const UTC_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const CONVERSATION_FIELDS = [
  'assignedAiAgentId',
  'assigneeId',
  'assigneeName',
  'channel',
  'channelId',
  'contactId',
  'contactName',
  'contactType',
  'id',
  'isAiAssignee',
  'lastActivityAt',
  'lastEventDirection',
  'lastEventOccurredAt',
  'lastEventPreviewBody',
  'lastEventSourceType',
  'lastEventStatus',
  'lastEventsCount',
  'phoneNumber',
  'referral',
  'sentiment',
  'status',
  'tags',
  'unreadCount',
];

describeWithApp('Conversations API and Tags API', { env: { RATE_LIMIT_REQUESTS_PER_MINUTE: '100000' } }, (fx) => {
  let channel: { id: string; name: string };
  let otherChannel: { id: string };
  let ann: { userId: string; name: string };
  let bot: { userId: string; name: string };
  let bUser: { userId: string };

  const open = async (phoneNumber: string, extra: Record<string, unknown> = {}, ws = fx.a, channelId = channel.id) => {
    const res = await ws.api.post('/v2/conversations/service-account/create', { channelId, phoneNumber, ...extra });
    assert.equal(res.status, 200, res.text);
    return res.body;
  };
  const tag = async (name: string, ws = fx.a) => {
    const res = await ws.api.post('/v1/tags/service-account', { name });
    assert.equal(res.status, 200, res.text);
    return res.body;
  };

  before(async () => {
    channel = await createChannel(fx.t, fx.a.workspaceId, { name: 'Support' });
    otherChannel = await createChannel(fx.t, fx.a.workspaceId, { name: 'Sales', phoneNumber: '+14155550999' });
    ann = (await fx.t.admin.post(`/admin/v1/workspaces/${fx.a.workspaceId}/users`, { email: 'ann@a.example', name: 'Ann', role: 2 })).body;
    bot = (
      await fx.t.admin.post(`/admin/v1/workspaces/${fx.a.workspaceId}/users`, {
        email: 'bot@a.example',
        name: 'Helper Bot',
        role: 2,
        isAiAgent: true,
      })
    ).body;
    bUser = (await fx.t.admin.post(`/admin/v1/workspaces/${fx.b.workspaceId}/users`, { email: 'bob@b.example', name: 'Bob', role: 1 }))
      .body;
  });

  it('creates a conversation (and the contact), and returns the same open one again', async () => {
    const first = await open('966501234567', { contactName: 'Sara' });
    assert.deepEqual(Object.keys(first.conversation).sort(), CONVERSATION_FIELDS);
    assert.equal(first.contactId, first.conversation.contactId);
    assert.equal(first.conversation.contactName, 'Sara');
    assert.equal(first.conversation.phoneNumber, '+966501234567');
    assert.equal(first.conversation.status, 1);
    assert.deepEqual(first.conversation.channel, { id: channel.id, name: 'Support', type: 3, icon: null, phoneNumber: '+14155550123' });
    assert.match(first.conversation.lastActivityAt, UTC_Z);
    assert.deepEqual(first.conversation.tags, []);
    assert.equal(first.conversation.unreadCount, 0);
    const again = await open('+966 50 123 4567');
    assert.equal(again.conversation.id, first.conversation.id);
    const elsewhere = await open('+966501234567', {}, fx.a, otherChannel.id);
    assert.notEqual(elsewhere.conversation.id, first.conversation.id, 'one open conversation per contact and channel');
    assert.equal(elsewhere.contactId, first.contactId, 'the same contact');
  });

  it('assigns to a user, then an AI agent, unassigns, and records each as an Assignation event with names', async () => {
    const { conversation } = await open('+14155550301');
    const toAnn = await fx.a.api.post(`/v2/conversations/service-account/${conversation.id}/assign`, { assignedUserId: ann.userId });
    assert.equal(toAnn.status, 200, toAnn.text);
    assert.equal(toAnn.body.assigneeId, ann.userId);
    assert.equal(toAnn.body.assigneeName, 'Ann');
    assert.equal(toAnn.body.isAiAssignee, false);
    assert.equal(toAnn.body.lastEventSourceType, 3);
    assert.equal(toAnn.body.lastEventDirection, 3);
    const toBot = await fx.a.api.post(`/v2/conversations/service-account/${conversation.id}/assign`, { AssignedAiAgentId: bot.userId });
    assert.equal(toBot.body.assignedAiAgentId, bot.userId);
    assert.equal(toBot.body.assigneeId, null);
    assert.equal(toBot.body.isAiAssignee, true);
    assert.equal(toBot.body.assigneeName, 'Helper Bot');
    const none = await fx.a.api.post(`/v2/conversations/service-account/${conversation.id}/assign`, {
      assignedUserId: null,
      assignedAiAgentId: null,
    });
    assert.equal(none.body.assigneeId, null);
    assert.equal(none.body.assignedAiAgentId, null);
    const timeline = await fx.a.api.get(`/v2/conversations/service-account/${conversation.id}/timeline?Sorting=CreationTime%20ASC`);
    assert.equal(timeline.status, 200);
    assert.equal(timeline.body.totalCount, 3);
    const [first, second, third] = timeline.body.items;
    assert.equal(first.sourceType, 3);
    assert.deepEqual(first.assignation, {
      assignedUserId: ann.userId,
      assignedUserName: 'Ann',
      assignedAiAgentId: null,
      assignedAiAgentName: null,
      assignedByUserId: null,
      assignedByUserName: 'integration',
    });
    assert.equal(second.assignation.assignedAiAgentName, 'Helper Bot');
    assert.equal(third.assignation.assignedUserId, null);
    assert.match(first.creationTime, UTC_Z);
    const desc = await fx.a.api.get(`/v2/conversations/service-account/${conversation.id}/timeline`);
    assert.equal(desc.body.items[0].eventId, third.eventId, 'newest first by default');
  });

  it('creates a conversation assigned to an AI agent', async () => {
    const { conversation } = await open('+14155550306', { assignToAiAgentId: bot.userId });
    assert.equal(conversation.assignedAiAgentId, bot.userId);
    assert.equal(conversation.isAiAssignee, true);
    assert.equal(conversation.lastEventSourceType, 3);
    const both = await fx.a.api.post('/v2/conversations/service-account/create', {
      channelId: channel.id,
      phoneNumber: '+14155550307',
      assignToUserId: ann.userId,
      assignToAiAgentId: bot.userId,
    });
    assert.equal(both.status, 400);
  });

  it('refuses both assignees (400), foreign or unknown users (404), and an AI agent given as a user', async () => {
    const { conversation } = await open('+14155550302');
    const both = await fx.a.api.post(`/v2/conversations/service-account/${conversation.id}/assign`, {
      assignedUserId: ann.userId,
      assignedAiAgentId: bot.userId,
    });
    assert.equal(both.status, 400);
    assert.equal(both.body.error.code, 'Conversations:BothAssignees');
    const foreign = await fx.a.api.post(`/v2/conversations/service-account/${conversation.id}/assign`, { assignedUserId: bUser.userId });
    assert.equal(foreign.status, 404);
    const botAsUser = await fx.a.api.post(`/v2/conversations/service-account/${conversation.id}/assign`, { assignedUserId: bot.userId });
    assert.equal(botAsUser.status, 404);
    const get = await fx.a.api.get(`/v2/conversations/service-account/${conversation.id}`);
    assert.equal(get.body.lastEventsCount, 0, 'nothing recorded');
  });

  it('manages tags: create, list, update only present fields, duplicate 409, delete in use 409', async () => {
    const vip = await tag('VIP');
    assert.deepEqual(Object.keys(vip).sort(), ['creationTime', 'description', 'icon', 'id', 'isPinned', 'name']);
    assert.match(vip.creationTime, UTC_Z);
    const dup = await fx.a.api.post('/v1/tags/service-account', { name: 'vip' });
    assert.equal(dup.status, 409);
    const updated = await fx.a.api.put(`/v1/tags/service-account/${vip.id}`, { isPinned: true });
    assert.equal(updated.body.name, 'VIP');
    assert.equal(updated.body.isPinned, true);
    await tag('Billing');
    const list = await fx.a.api.get('/v1/tags/service-account?Sorting=Name%20DESC');
    assert.deepEqual(
      list.body.items.map((x: { name: string }) => x.name),
      ['VIP', 'Billing'],
    );
    assert.equal((await fx.b.api.get('/v1/tags/service-account')).body.totalCount, 0);
    const { conversation } = await open('+14155550303');
    await fx.a.api.put(`/v2/conversations/service-account/${conversation.id}/tags/${vip.id}`);
    const inUse = await fx.a.api.delete(`/v1/tags/service-account/${vip.id}`);
    assert.equal(inUse.status, 409);
    assert.equal(inUse.body.error.code, 'Tags:TagInUse');
    const unused = await tag('Spare');
    assert.equal((await fx.a.api.delete(`/v1/tags/service-account/${unused.id}`)).status, 204);
    assert.equal((await fx.b.api.delete(`/v1/tags/service-account/${vip.id}`)).status, 404);
  });

  it('replaces a conversation’s tags, and adds/removes one tag idempotently', async () => {
    const { conversation } = await open('+14155550304');
    const x = await tag('X');
    const y = await tag('Y');
    const replaced = await fx.a.api.post(`/v2/conversations/service-account/${conversation.id}/tags`, { tagIds: [x.id, y.id] });
    assert.equal(replaced.status, 200, replaced.text);
    assert.deepEqual(
      replaced.body.tags.map((z: { name: string }) => z.name),
      ['X', 'Y'],
    );
    const only = await fx.a.api.post(`/v2/conversations/service-account/${conversation.id}/tags`, { tagIds: [y.id] });
    assert.deepEqual(
      only.body.tags.map((z: { name: string }) => z.name),
      ['Y'],
    );
    await fx.a.api.put(`/v2/conversations/service-account/${conversation.id}/tags/${x.id}`);
    const twice = await fx.a.api.put(`/v2/conversations/service-account/${conversation.id}/tags/${x.id}`);
    assert.deepEqual(
      twice.body.tags.map((z: { name: string }) => z.name),
      ['X', 'Y'],
    );
    await fx.a.api.delete(`/v2/conversations/service-account/${conversation.id}/tags/${y.id}`);
    const removed = await fx.a.api.delete(`/v2/conversations/service-account/${conversation.id}/tags/${y.id}`);
    assert.equal(removed.status, 200);
    assert.deepEqual(
      removed.body.tags.map((z: { name: string }) => z.name),
      ['X'],
    );
    const foreignTag = await tag('Theirs', fx.b);
    assert.equal(
      (await fx.a.api.post(`/v2/conversations/service-account/${conversation.id}/tags`, { tagIds: [foreignTag.id] })).status,
      404,
    );
  });

  it('keeps every tag when clients add different tags at the same time', async () => {
    const { conversation } = await open('+14155550305');
    const tags = await Promise.all(Array.from({ length: 8 }, (_, i) => tag(`Concurrent ${i}`)));
    const results = await Promise.all(tags.map((x) => fx.a.api.put(`/v2/conversations/service-account/${conversation.id}/tags/${x.id}`)));
    assert.ok(results.every((r) => r.status === 200));
    const final = await fx.a.api.get(`/v2/conversations/service-account/${conversation.id}`);
    assert.equal(final.body.tags.length, 8);
  });

  it('lists conversations of a channel with every filter', async () => {
    const c1 = (await open('+14155550310', { contactName: 'Filter One', assignToUserId: ann.userId })).conversation;
    const c2 = (await open('+14155550311', { contactName: 'Filter Two' })).conversation;
    const hot = await tag('Hot');
    await fx.a.api.put(`/v2/conversations/service-account/${c2.id}/tags/${hot.id}`);
    const list = (query: string) => fx.a.api.get(`/v2/conversations/service-account/channels/${channel.id}?MaxResultCount=100&${query}`);
    const ids = (res: { body: { items: Array<{ id: string }> } }) => res.body.items.map((c) => c.id);
    assert.deepEqual(ids(await list(`AssigneeUserIds=${ann.userId}`)).includes(c1.id), true);
    assert.ok(!ids(await list(`AssigneeUserIds=${ann.userId}`)).includes(c2.id));
    assert.ok(ids(await list('GetUnAssigned=true')).includes(c2.id));
    assert.ok(!ids(await list('GetUnAssigned=true')).includes(c1.id));
    assert.deepEqual(ids(await list(`TagIds=${hot.id}`)), [c2.id]);
    assert.deepEqual(ids(await list(`ContactIds=${c1.contactId},${c2.contactId}`)).sort(), [c1.id, c2.id].sort());
    assert.deepEqual(ids(await list('Name=filter%20two')), [c2.id]);
    assert.deepEqual(ids(await list('PhoneNumber=4155550310')), [c1.id]);
    const digitless = await list('PhoneNumber=none');
    assert.equal(digitless.status, 400, digitless.text);
    assert.deepEqual(digitless.body.error.validationErrors[0].members, ['phoneNumber']);
    const future = await list('FromDate=2999-01-01T00:00:00Z');
    assert.equal(future.body.totalCount, 0);
    assert.ok(ids(await list('ToDate=2999-01-01T00:00:00Z')).includes(c1.id));
    assert.ok(!ids(await list('IsLost=true')).includes(c1.id), 'its last event is an internal assignation');
    const sorted = await list('Sorting=CreationTime%20ASC');
    const created = sorted.body.items.map((c: { id: string }) => c.id);
    assert.ok(created.indexOf(c1.id) < created.indexOf(c2.id));
    assert.ok(sorted.body.items.every((c: { channelId: string }) => c.channelId === channel.id));
    assert.equal((await list('FromDate=yesterday')).status, 400);
    assert.equal((await list('AssigneeUserIds=not-a-uuid')).status, 400);
    assert.equal((await list('Sorting=Secret')).status, 400);
    assert.equal((await list('MaxResultCount=5000')).status, 400);
  });

  it('lets Search Contacts filter by conversation tags', async () => {
    const vipContact = (await open('+14155550340')).conversation;
    const plainContact = (await open('+14155550341')).conversation;
    const gold = await tag('Gold Tier');
    await fx.a.api.put(`/v2/conversations/service-account/${vipContact.id}/tags/${gold.id}`);
    const res = await fx.a.api.post('/v1/contacts/search', { tagIds: [gold.id], maxResultCount: 100 });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.items.map((c: { id: string }) => c.id),
      [vipContact.contactId],
    );
    assert.equal(res.body.totalCount, 1);
    assert.ok(!res.body.items.some((c: { id: string }) => c.id === plainContact.contactId));
    const foreign = await tag('Other WS', fx.b);
    assert.equal((await fx.a.api.post('/v1/contacts/search', { tagIds: [foreign.id] })).status, 404);
  });

  it('closes and reopens', async () => {
    const { conversation } = await open('+14155550320');
    const closed = await fx.a.api.post(`/v2/conversations/service-account/${conversation.id}/status`, { status: 2 });
    assert.equal(closed.body.status, 2);
    assert.deepEqual(
      (await fx.a.api.get(`/v2/conversations/service-account/channels/${channel.id}?Status=2&MaxResultCount=100`)).body.items
        .map((c: { id: string }) => c.id)
        .includes(conversation.id),
      true,
    );
    const fresh = await open('+14155550320');
    assert.notEqual(fresh.conversation.id, conversation.id, 'a closed conversation is not reused');
    const reopen = await fx.a.api.post(`/v2/conversations/service-account/${conversation.id}/status`, { status: 1 });
    assert.equal(reopen.status, 409, 'another conversation of the contact is open on the channel');
  });

  it('answers 404 for foreign or unknown conversations, channels and tags on every route', async () => {
    const theirs = (await open('+14155550330', {}, fx.b, (await createChannel(fx.t, fx.b.workspaceId)).id)).conversation;
    const mine = (await open('+14155550331')).conversation;
    const myTag = await tag('Mine');
    const theirTag = await tag('TheirsToo', fx.b);
    const routes: Array<[string, string, unknown?]> = [
      ['GET', `/v2/conversations/service-account/${theirs.id}`],
      ['POST', `/v2/conversations/service-account/${theirs.id}/assign`, { assignedUserId: null }],
      ['POST', `/v2/conversations/service-account/${theirs.id}/status`, { status: 2 }],
      ['GET', `/v2/conversations/service-account/${theirs.id}/timeline`],
      ['POST', `/v2/conversations/service-account/${theirs.id}/tags`, { tagIds: [] }],
      ['PUT', `/v2/conversations/service-account/${theirs.id}/tags/${myTag.id}`],
      ['DELETE', `/v2/conversations/service-account/${theirs.id}/tags/${myTag.id}`],
      ['PUT', `/v2/conversations/service-account/${mine.id}/tags/${theirTag.id}`],
      ['GET', `/v2/conversations/service-account/channels/${theirs.channelId}`],
      ['POST', '/v2/conversations/service-account/create', { channelId: theirs.channelId, phoneNumber: '+14155550332' }],
      ['GET', '/v2/conversations/service-account/not-a-uuid'],
      ['PUT', `/v1/tags/service-account/${theirTag.id}`, { name: 'x' }],
    ];
    for (const [method, path, json] of routes) {
      const res = await fx.a.api.request(method, path, { json });
      assert.equal(res.status, 404, `${method} ${path} → ${res.status}`);
    }
    assert.equal((await fx.b.api.get(`/v2/conversations/service-account/${theirs.id}`)).status, 200, 'B still sees its own');
  });
});
