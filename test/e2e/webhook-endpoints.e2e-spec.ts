import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import { hostname } from 'node:os';
import { after, before, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { describeWithApp } from '../support/describe-with-app.js';
import { createChannel, waitFor, type WorkspaceFixture } from '../support/fixtures.js';
import { WebhookReceiver, verifySignature, type ReceivedWebhook } from '../support/webhook-receiver.js';

const NO_ID = '0190f0f0-0000-7000-8000-000000000000';
const events = (received: ReceivedWebhook[]) => received.map((r) => JSON.parse(r.body) as { type: string; workspaceId: string; data: any });
const typesAt = (receiver: WebhookReceiver, path: string) => events(receiver.at(path)).map((e) => e.type);

async function createEndpoint(ws: WorkspaceFixture, body: Record<string, unknown>) {
  const res = await ws.api.post('/v1/webhook-endpoints', body);
  assert.equal(res.status, 200, res.text);
  return res.body as { id: string; secret: string } & Record<string, any>;
}

async function deliveriesOf(ws: WorkspaceFixture, endpointId: string) {
  const res = await ws.api.get(`/v1/webhook-deliveries?EndpointId=${endpointId}&MaxResultCount=1000`);
  assert.equal(res.status, 200, res.text);
  return res.body.items as Array<Record<string, any>>;
}

describeWithApp(
  'Webhook endpoints (API.md §11.1)',
  {
    env: {
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '300ms,300ms,300ms',
      WEBHOOK_DISABLE_AFTER: '3s',
      RATE_LIMIT_REQUESTS_PER_MINUTE: '1000000',
    },
  },
  (fx) => {
    let receiver: WebhookReceiver;
    before(async () => {
      receiver = await WebhookReceiver.start();
    });
    after(() => receiver.close());

    it('creates, lists, reads, updates and deletes an endpoint, with its secret shown only on create and by the secret route', async () => {
      const created = await createEndpoint(fx.a, {
        url: receiver.url('/crud'),
        description: 'CRM',
        eventTypes: ['contact.created'],
        rateLimitPerSecond: 50,
        ordered: true,
        headers: { 'X-Api-Key': 'k1' },
      });
      assert.match(created.secret, /^whsec_/);
      assert.equal(created.description, 'CRM');
      assert.deepEqual(created.eventTypes, ['contact.created']);
      assert.equal(created.channelIds, null);
      assert.deepEqual(created.headers, { 'X-Api-Key': 'k1' });
      assert.equal(created.disabled, false);
      assert.equal(created.disabledReason, null);
      const read = await fx.a.api.get(`/v1/webhook-endpoints/${created.id}`);
      assert.equal(read.status, 200);
      assert.equal(read.body.secret, undefined, 'the secret is not part of the endpoint');
      assert.equal((await fx.a.api.get(`/v1/webhook-endpoints/${created.id}/secret`)).body.secret, created.secret);
      const updated = await fx.a.api.put(`/v1/webhook-endpoints/${created.id}`, { eventTypes: null, rateLimitPerSecond: 7 });
      assert.equal(updated.status, 200, updated.text);
      assert.equal(updated.body.eventTypes, null);
      assert.equal(updated.body.rateLimitPerSecond, 7);
      assert.equal(updated.body.description, 'CRM', 'fields not given stay');
      assert.equal(updated.body.ordered, true);
      for (const field of ['url', 'ordered', 'disabled']) {
        const cleared = await fx.a.api.put(`/v1/webhook-endpoints/${created.id}`, { [field]: null });
        assert.equal(cleared.status, 400, `${field}: null → ${cleared.text}`);
        assert.deepEqual(cleared.body.error.validationErrors[0].members, [field]);
      }
      const list = await fx.a.api.get('/v1/webhook-endpoints');
      assert.ok(list.body.items.some((e: { id: string }) => e.id === created.id));
      assert.equal((await fx.a.api.delete(`/v1/webhook-endpoints/${created.id}`)).status, 204);
      assert.equal((await fx.a.api.get(`/v1/webhook-endpoints/${created.id}`)).status, 404);
    });

    it('refuses bad input with a 400 naming the member', async () => {
      const url = receiver.url('/bad');
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ url: 'ftp://example.com/x' }, 'url'],
        [{ url, rateLimitPerSecond: 0 }, 'rateLimitPerSecond'],
        [{ url, rateLimitPerSecond: 1001 }, 'rateLimitPerSecond'],
        [{ url, eventTypes: ['contact.created', 'contact.exploded'] }, 'eventTypes[1]'],
        [{ url, headers: { Connection: 'close' } }, 'headers'],
        [{ url, headers: { 'Webhook-Signature': 'v1,x' } }, 'headers'],
        [{ url, headers: { 'X-Bad': 'a\r\nb' } }, 'headers'],
        [{ url, headers: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`X-H${i}`, 'v'])) }, 'headers'],
        [{ url, channelIds: ['not-a-uuid'] }, 'channelIds'],
      ];
      for (const [body, member] of cases) {
        const res = await fx.a.api.post('/v1/webhook-endpoints', body);
        assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
        assert.ok(
          res.body.error.validationErrors.some((v: { members: string[] }) => v.members.includes(member)),
          `${JSON.stringify(body)} names ${member}: ${res.text}`,
        );
      }
      const unknown = await fx.a.api.post('/v1/webhook-endpoints', { url, eventTypes: ['nope'] });
      assert.equal(unknown.body.error.code, 'Webhooks:UnknownEventType');
      assert.equal((await fx.a.api.get('/v1/webhook-endpoints')).body.items.filter((e: any) => e.url === url).length, 0);
    });

    it("answers 404 for another workspace's endpoint on every route", async () => {
      const endpoint = await createEndpoint(fx.a, { url: receiver.url('/mine') });
      for (const id of [endpoint.id, NO_ID, 'not-an-id']) {
        const base = `/v1/webhook-endpoints/${id}`;
        const answers = [
          await fx.b.api.get(base),
          await fx.b.api.put(base, { description: 'x' }),
          await fx.b.api.get(`${base}/secret`),
          await fx.b.api.post(`${base}/secret/rotate`),
          await fx.b.api.post(`${base}/test`, { eventType: 'contact.created' }),
          await fx.b.api.post(`${base}/recover`, { since: '2020-01-01T00:00:00Z' }),
          await fx.b.api.delete(base),
        ];
        for (const res of answers) assert.equal(res.status, 404, `${id}: ${res.text}`);
      }
      assert.equal((await fx.b.api.get('/v1/webhook-endpoints')).body.totalCount, 0);
      assert.equal((await fx.b.api.get(`/v1/webhook-deliveries?EndpointId=${endpoint.id}`)).body.totalCount, 0);
      assert.equal((await fx.a.api.get(`/v1/webhook-endpoints/${endpoint.id}`)).body.description, null, 'B changed nothing');
      await fx.a.api.delete(`/v1/webhook-endpoints/${endpoint.id}`);
    });

    it('lists the event types with a JSON Schema of each payload', async () => {
      const res = await fx.a.api.get('/v1/webhook-event-types');
      assert.equal(res.status, 200, res.text);
      const types = res.body.map((e: { type: string }) => e.type);
      for (const type of [
        'whatsapp.message',
        'call',
        'outbound_ivr.completed',
        'contact.created',
        'contact.updated',
        'contact.deleted',
        'contact.merged',
        'conversation.created',
        'conversation.assigned',
        'conversation.status_changed',
        'conversation.tags_changed',
        'webhook_endpoint.disabled',
      ]) {
        assert.ok(types.includes(type), type);
      }
      const updated = res.body.find((e: { type: string }) => e.type === 'contact.updated');
      assert.deepEqual(updated.schema.required, ['type', 'timestamp', 'workspaceId', 'data']);
      const dataName = updated.schema.properties.data.$ref.replace('#/$defs/', '');
      const data = updated.schema.$defs[dataName];
      assert.ok(data.properties.changes, 'contact.updated carries changes');
      assert.ok(data.properties.phoneNumber, 'and the ContactDto fields');
    });

    it('fans an event out to every endpoint that takes it, one delivery each, by event type and channel', async () => {
      const channelX = await createChannel(fx.t, fx.a.workspaceId, { name: 'X', phoneNumber: '+14155550171' });
      const channelY = await createChannel(fx.t, fx.a.workspaceId, { name: 'Y', phoneNumber: '+14155550172' });
      const all = await createEndpoint(fx.a, { url: receiver.url('/fan-all') });
      const contactsOnly = await createEndpoint(fx.a, { url: receiver.url('/fan-contacts'), eventTypes: ['contact.created'] });
      const onlyY = await createEndpoint(fx.a, { url: receiver.url('/fan-y'), channelIds: [channelY.id] });
      const conversation = await fx.a.api.post('/v2/conversations/service-account/create', {
        channelId: channelX.id,
        phoneNumber: '+14155550999',
        contactName: 'Fan Out',
      });
      assert.equal(conversation.status, 200, conversation.text);
      await waitFor(async () => typesAt(receiver, '/fan-all').length >= 2, 15_000, 'both events at the first endpoint');
      await waitFor(async () => receiver.at('/fan-contacts').length >= 1 && receiver.at('/fan-y').length >= 1, 15_000, 'the others');
      assert.deepEqual(typesAt(receiver, '/fan-all').sort(), ['contact.created', 'conversation.created']);
      assert.deepEqual(typesAt(receiver, '/fan-contacts'), ['contact.created']);
      // A contact belongs to no channel: the channel filter lets it through; the conversation on X is filtered out.
      assert.deepEqual(typesAt(receiver, '/fan-y'), ['contact.created']);
      const [createdEvent] = events(receiver.at('/fan-all')).filter((e) => e.type === 'conversation.created');
      assert.equal(createdEvent.workspaceId, fx.a.workspaceId);
      assert.equal(createdEvent.data.id, conversation.body.conversation.id);
      assert.equal(createdEvent.data.channelId, channelX.id);
      const logged = await deliveriesOf(fx.a, all.id);
      assert.equal(logged.length, 2);
      assert.ok(logged.every((d) => d.endpointId === all.id && d.status === 'Succeeded' && d.targetUrl === receiver.url('/fan-all')));
      const byType = await fx.a.api.get(`/v1/webhook-deliveries?EndpointId=${all.id}&EventType=conversation.created`);
      assert.equal(byType.body.totalCount, 1);
      assert.equal((await deliveriesOf(fx.a, contactsOnly.id)).length, 1);
      assert.equal((await deliveriesOf(fx.a, onlyY.id)).length, 1);
      assert.equal((await fx.a.api.get('/v1/webhook-deliveries?EventType=contact.exploded')).status, 400);
      for (const e of [all, contactsOnly, onlyY]) await fx.a.api.delete(`/v1/webhook-endpoints/${e.id}`);
    });

    it('sends WhatsApp messages, their statuses and calls of a channel with no URL of its own to the endpoints that take them', async () => {
      const channel = await createChannel(fx.t, fx.a.workspaceId, {
        name: 'No URLs',
        phoneNumber: '+14155550173',
        voice: { provider: 'sandbox', sandbox: { answer: true, pressDigits: ['1'], ringMs: 0, talkMs: 0 } },
      });
      const other = await createChannel(fx.t, fx.a.workspaceId, { name: 'Other', phoneNumber: '+14155550174' });
      assert.equal(channel.webhookUrl ?? null, null);
      const endpoint = await createEndpoint(fx.a, {
        url: receiver.url('/originals'),
        eventTypes: ['whatsapp.message', 'call'],
        channelIds: [channel.id],
      });
      const inject = (channelId: string, text: string) =>
        fx.t.admin.post(`/admin/v1/channels/${channelId}/sandbox/inbound`, { fromNumber: '14155550975', type: 'text', text });
      assert.equal((await inject(other.id, 'Not for this endpoint')).status, 202);
      assert.equal((await inject(channel.id, 'Hello endpoint')).status, 202);
      const received = () => events(receiver.at('/originals'));
      await waitFor(
        async () => received().some((e) => e.type === 'whatsapp.message' && e.data.direction === 'Inbound'),
        15_000,
        'the inbound message',
      );
      const sent = await fx.a.api.post('/v1/whatsapp/service-account/sendText', {
        channelId: channel.id,
        toNumber: '14155550975',
        text: 'Hi back',
      });
      assert.equal(sent.status, 200, sent.text);
      await waitFor(
        async () => received().some((e) => e.type === 'whatsapp.message' && e.data.direction === 'Outbound'),
        15_000,
        'a status of the reply',
      );
      const call = await fx.a.api.post('/v1/outbound-ivr', {
        channelId: channel.id,
        destinationNumber: '14155550976',
        audioFileUrl: 'https://media.example.com/ask.wav',
        options: [{ digit: '1', description: 'Yes' }],
        webhookUrl: receiver.url('/request-url'),
      });
      assert.equal(call.status, 200, call.text);
      await waitFor(async () => received().some((e) => e.type === 'call'), 20_000, 'the call event');
      const all = received();
      assert.ok(
        all.every((e) => e.data.channelId === channel.id && e.workspaceId === fx.a.workspaceId),
        'only the filtered channel',
      );
      assert.ok(!all.some((e) => e.data.text === 'Not for this endpoint'));
      assert.ok(
        all.every((e) => e.type === 'whatsapp.message' || e.type === 'call'),
        'only the types it takes',
      );
      await fx.a.api.delete(`/v1/webhook-endpoints/${endpoint.id}`);
    });

    it("signs with each endpoint's own secret, and with both during a rotation (verified as a receiver would)", async () => {
      const one = await createEndpoint(fx.a, { url: receiver.url('/sig-1'), eventTypes: ['contact.deleted'] });
      const two = await createEndpoint(fx.a, {
        url: receiver.url('/sig-2'),
        eventTypes: ['contact.deleted'],
        headers: { 'X-Tenant': 't-2' },
      });
      await fx.a.api.post(`/v1/webhook-endpoints/${one.id}/test`, { eventType: 'contact.deleted' });
      await fx.a.api.post(`/v1/webhook-endpoints/${two.id}/test`, { eventType: 'contact.deleted' });
      await waitFor(async () => receiver.at('/sig-1').length === 1 && receiver.at('/sig-2').length === 1, 15_000, 'both tests');
      const [first] = receiver.at('/sig-1');
      const [second] = receiver.at('/sig-2');
      assert.doesNotThrow(() => verifySignature(first, one.secret));
      assert.throws(() => verifySignature(first, two.secret), 'not with another endpoint secret');
      assert.throws(() => verifySignature(first, fx.a.webhookSecret), "nor with the workspace's");
      assert.doesNotThrow(() => verifySignature(second, two.secret));
      assert.equal(second.headers['x-tenant'], 't-2');
      assert.equal(second.headers['webhook-event'], 'contact.deleted');
      const rotated = await fx.a.api.post(`/v1/webhook-endpoints/${one.id}/secret/rotate`);
      assert.equal(rotated.status, 200);
      assert.notEqual(rotated.body.secret, one.secret);
      assert.equal((await fx.a.api.get(`/v1/webhook-endpoints/${one.id}/secret`)).body.secret, rotated.body.secret);
      await fx.a.api.post(`/v1/webhook-endpoints/${one.id}/test`, { eventType: 'contact.deleted' });
      await waitFor(async () => receiver.at('/sig-1').length === 2, 15_000, 'the test after the rotation');
      const during = receiver.at('/sig-1')[1];
      assert.equal(String(during.headers['webhook-signature']).split(' ').length, 2);
      for (const secret of [one.secret, rotated.body.secret]) {
        new Webhook(secret).verify(during.body, {
          'webhook-id': String(during.headers['webhook-id']),
          'webhook-timestamp': String(during.headers['webhook-timestamp']),
          'webhook-signature': String(during.headers['webhook-signature']),
        });
      }
      for (const e of [one, two]) await fx.a.api.delete(`/v1/webhook-endpoints/${e.id}`);
    });

    it('sends a test event of any catalog type now and answers its delivery; an unknown type is a 400', async () => {
      const endpoint = await createEndpoint(fx.a, { url: receiver.url('/test-event'), eventTypes: ['call'] });
      const res = await fx.a.api.post(`/v1/webhook-endpoints/${endpoint.id}/test`, { eventType: 'conversation.assigned' });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.endpointId, endpoint.id);
      assert.equal(res.body.kind, 'conversation.assigned');
      assert.equal(res.body.status, 'Pending');
      await waitFor(async () => receiver.at('/test-event').length === 1, 15_000, 'the test event');
      const [event] = events(receiver.at('/test-event'));
      assert.equal(event.type, 'conversation.assigned');
      assert.equal(typeof event.data.id, 'string');
      assert.equal(receiver.at('/test-event')[0].headers['webhook-id'], res.body.id);
      const bad = await fx.a.api.post(`/v1/webhook-endpoints/${endpoint.id}/test`, { eventType: 'contact.exploded' });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.code, 'Webhooks:UnknownEventType');
      await fx.a.api.delete(`/v1/webhook-endpoints/${endpoint.id}`);
    });

    it('throttles an endpoint to 5 attempts a second, measured by the receiver; none fails', async () => {
      // Test events go whatever the filter; the filter keeps out late events of earlier tests (a call's new contact, a status).
      const endpoint = await createEndpoint(fx.a, {
        url: receiver.url('/throttle'),
        rateLimitPerSecond: 5,
        eventTypes: ['conversation.tags_changed'],
      });
      for (let i = 0; i < 20; i++) await fx.a.api.post(`/v1/webhook-endpoints/${endpoint.id}/test`, { eventType: 'contact.created' });
      await waitFor(async () => receiver.at('/throttle').length === 20, 30_000, '20 throttled deliveries');
      // The throttle counts starts at the sender; the receiver sees each one after a transit and an event-loop
      // delay of its own (this process also runs the app), so its gaps may read up to TRANSIT_JITTER_MS short.
      const TRANSIT_JITTER_MS = 100;
      const times = receiver
        .at('/throttle')
        .map((r) => r.receivedAt)
        .sort((x, y) => x - y);
      const gaps = times.slice(5).map((t, i) => t - times[i]);
      assert.ok(
        gaps.every((gap) => gap >= 1000 - TRANSIT_JITTER_MS),
        `the 6th attempt after another came too soon: ${JSON.stringify(gaps)} ms`,
      );
      assert.ok(times[15] - times[0] >= 3000 - TRANSIT_JITTER_MS, `twenty at five a second span three seconds: ${times[15] - times[0]} ms`);
      // The receiver can see the last request before the worker has recorded its answer.
      const logged = await waitFor(
        async () => {
          const deliveries = await deliveriesOf(fx.a, endpoint.id);
          return deliveries.every((d) => d.status !== 'Pending') ? deliveries : undefined;
        },
        10_000,
        'the outcomes recorded',
      ).catch(async (err: Error) => {
        const deliveries = await deliveriesOf(fx.a, endpoint.id);
        const ids = receiver.at('/throttle').map((r) => String(r.headers['webhook-id']));
        throw new Error(
          `${err.message}: ${JSON.stringify(deliveries.map((d) => [d.id, d.kind, d.status, d.attempts, d.creationTime, d.nextAttemptAt]))}; received ${JSON.stringify(ids)}`,
        );
      });
      assert.ok(
        logged.every((d) => d.status === 'Succeeded' && d.attempts === 1),
        JSON.stringify(logged.map((d) => [d.status, d.attempts])),
      );
      await fx.a.api.delete(`/v1/webhook-endpoints/${endpoint.id}`);
    });

    it("delivers one key's events in order while its first one fails three times, and lets another key flow", async () => {
      const channel = await createChannel(fx.t, fx.a.workspaceId, { name: 'Ordered', phoneNumber: '+14155550173' });
      const open = async (phoneNumber: string) =>
        (await fx.a.api.post('/v2/conversations/service-account/create', { channelId: channel.id, phoneNumber })).body.conversation
          .id as string;
      const [keyA, keyB] = [await open('+14155550301'), await open('+14155550302')];
      const tag = (await fx.a.api.post('/v1/tags/service-account', { name: 'ordered-tag' })).body.id as string;
      // The receiver fails the first status change of conversation A three times.
      const seen: Array<{ type: string; key: string; at: number; ok: boolean }> = [];
      let failuresLeft = 3;
      const server: Server = createServer((req, res) => {
        let body = '';
        req.on('data', (c: Buffer) => (body += c.toString()));
        req.on('end', () => {
          const event = JSON.parse(body) as { type: string; data: { id: string } };
          const fail = event.data.id === keyA && event.type === 'conversation.status_changed' && failuresLeft-- > 0;
          seen.push({ type: event.type, key: event.data.id, at: Date.now(), ok: !fail });
          res.writeHead(fail ? 500 : 200).end();
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const port = (server.address() as { port: number }).port;
      const endpoint = await createEndpoint(fx.a, {
        url: `http://127.0.0.1:${port}/ordered`,
        ordered: true,
        eventTypes: ['conversation.status_changed', 'conversation.tags_changed'],
      });
      try {
        for (const key of [keyA, keyB]) {
          assert.equal((await fx.a.api.post(`/v2/conversations/service-account/${key}/status`, { status: 2 })).status, 200);
          assert.equal((await fx.a.api.post(`/v2/conversations/service-account/${key}/tags`, { tagIds: [tag] })).status, 200);
        }
        await waitFor(async () => seen.filter((s) => s.ok).length === 4, 20_000, 'all four events delivered');
        const ofA = seen.filter((s) => s.key === keyA);
        assert.deepEqual(
          ofA.map((s) => `${s.type}:${s.ok}`),
          [
            'conversation.status_changed:false',
            'conversation.status_changed:false',
            'conversation.status_changed:false',
            'conversation.status_changed:true',
            'conversation.tags_changed:true',
          ],
          "A's tags change waited for its status change",
        );
        const ofB = seen.filter((s) => s.key === keyB);
        assert.deepEqual(
          ofB.map((s) => s.type),
          ['conversation.status_changed', 'conversation.tags_changed'],
        );
        const aSucceeded = ofA.find((s) => s.ok)!.at;
        assert.ok(ofB[1].at < aSucceeded, "B's events did not wait for A's retries");
      } finally {
        server.closeAllConnections();
        server.close();
        await fx.a.api.delete(`/v1/webhook-endpoints/${endpoint.id}`);
      }
    });

    it('sends again the deliveries that ended Failed since a time (recover)', async () => {
      const endpoint = await createEndpoint(fx.a, { url: receiver.url('/recover') });
      receiver.script('/recover', { status: 410 }, { status: 410 });
      const since = new Date(Date.now() - 1000).toISOString();
      const first = (await fx.a.api.post(`/v1/webhook-endpoints/${endpoint.id}/test`, { eventType: 'contact.created' })).body.id;
      const second = (await fx.a.api.post(`/v1/webhook-endpoints/${endpoint.id}/test`, { eventType: 'contact.updated' })).body.id;
      await waitFor(
        async () => (await deliveriesOf(fx.a, endpoint.id)).filter((d) => d.status === 'Failed').length === 2,
        15_000,
        'both to fail (410)',
      );
      const none = await fx.a.api.post(`/v1/webhook-endpoints/${endpoint.id}/recover`, {
        since: new Date(Date.now() + 60_000).toISOString(),
      });
      assert.deepEqual(none.body, { count: 0 });
      const recovered = await fx.a.api.post(`/v1/webhook-endpoints/${endpoint.id}/recover`, { since });
      assert.equal(recovered.status, 200, recovered.text);
      assert.deepEqual(recovered.body, { count: 2 });
      await waitFor(
        async () => (await deliveriesOf(fx.a, endpoint.id)).filter((d) => d.status === 'Succeeded').length === 2,
        15_000,
        'both to succeed',
      );
      const ids = receiver.at('/recover').map((r) => r.headers['webhook-id']);
      assert.deepEqual(ids.filter((id) => id === first).length, 2, 'same webhook-id on the resend');
      assert.deepEqual(ids.filter((id) => id === second).length, 2);
      assert.equal((await fx.a.api.post(`/v1/webhook-endpoints/${endpoint.id}/recover`, { since: 'yesterday' })).status, 400);
      await fx.a.api.delete(`/v1/webhook-endpoints/${endpoint.id}`);
    });

    it('keeps delivering to a live endpoint while six receivers never answer', async () => {
      // Six black holes: every attempt to them waits out its 10 s deadline. Jobs holding their slots for that long
      // (twelve per endpoint) would take every one of the worker's; the live endpoint must not wait for them.
      const sockets = new Set<Socket>();
      const hole = createTcpServer((socket) => {
        sockets.add(socket);
        socket.on('error', () => undefined);
        socket.resume();
      });
      await new Promise<void>((resolve) => hole.listen(0, '127.0.0.1', resolve));
      const holeUrl = `http://127.0.0.1:${(hole.address() as { port: number }).port}/never`;
      const only = { eventTypes: ['conversation.tags_changed'] };
      const holes = [];
      for (let i = 0; i < 6; i++) holes.push(await createEndpoint(fx.a, { url: holeUrl, ...only }));
      const live = await createEndpoint(fx.a, { url: receiver.url('/beside-holes'), ...only });
      try {
        for (const endpoint of holes) {
          await Promise.all(
            Array.from({ length: 20 }, () => fx.a.api.post(`/v1/webhook-endpoints/${endpoint.id}/test`, { eventType: 'contact.created' })),
          );
        }
        const sentAt = Date.now();
        for (let i = 0; i < 10; i++) await fx.a.api.post(`/v1/webhook-endpoints/${live.id}/test`, { eventType: 'contact.created' });
        await waitFor(async () => receiver.at('/beside-holes').length === 10, 20_000, "the live endpoint's ten events");
        const tookMs = Date.now() - sentAt;
        assert.ok(tookMs < 5_000, `the live endpoint's events took ${tookMs} ms beside the black holes`);
      } finally {
        for (const endpoint of holes) await fx.a.api.delete(`/v1/webhook-endpoints/${endpoint.id}`);
        await fx.a.api.delete(`/v1/webhook-endpoints/${live.id}`);
        for (const socket of sockets) socket.destroy();
        hole.close();
      }
    });

    it('cancels the pending deliveries of a deleted endpoint and keeps its log', async () => {
      const endpoint = await createEndpoint(fx.a, { url: receiver.url('/deleted'), rateLimitPerSecond: 1 });
      for (let i = 0; i < 6; i++) await fx.a.api.post(`/v1/webhook-endpoints/${endpoint.id}/test`, { eventType: 'contact.created' });
      assert.equal((await fx.a.api.delete(`/v1/webhook-endpoints/${endpoint.id}`)).status, 204);
      const log = await deliveriesOf(fx.a, endpoint.id);
      assert.equal(log.length, 6, 'the log stays');
      const cancelled = log.filter((d) => d.status === 'Failed' && /deleted/.test(d.lastError));
      assert.ok(cancelled.length >= 3, `${cancelled.length} cancelled`);
      const sentBefore = receiver.at('/deleted').length;
      await new Promise((resolve) => setTimeout(resolve, 2500)); // the throttle slots of the cancelled ones pass
      assert.equal(receiver.at('/deleted').length, sentBefore, 'nothing more was sent');
      assert.ok((await deliveriesOf(fx.a, endpoint.id)).every((d) => d.status !== 'Pending'));
    });

    it('writes contact and conversation events in the transaction of each change', async () => {
      const channel = await createChannel(fx.t, fx.a.workspaceId, { name: 'Domain', phoneNumber: '+14155550174' });
      const endpoint = await createEndpoint(fx.a, { url: receiver.url('/domain') });
      const contact = await fx.a.api.post('/v1/contacts', { name: 'Dana', phoneNumber: '+14155550401', email: 'dana@example.com' });
      assert.equal(contact.status, 200, contact.text);
      const updated = await fx.a.api.put(`/v1/contacts/${contact.body.id}`, { name: 'Dana B' });
      assert.equal(updated.status, 200, updated.text);
      assert.equal((await fx.a.api.delete(`/v1/contacts/${contact.body.id}`)).status, 204);
      const opened = await fx.a.api.post('/v2/conversations/service-account/create', {
        channelId: channel.id,
        phoneNumber: '+14155550402',
      });
      const conversationId = opened.body.conversation.id;
      await fx.a.api.post(`/v2/conversations/service-account/${conversationId}/assign`, { assignedUserId: null });
      await fx.a.api.post(`/v2/conversations/service-account/${conversationId}/status`, { status: 2 });
      const tag = (await fx.a.api.post('/v1/tags/service-account', { name: 'domain-tag' })).body.id;
      await fx.a.api.put(`/v2/conversations/service-account/${conversationId}/tags/${tag}`);
      const expected = [
        'contact.created',
        'contact.updated',
        'contact.deleted',
        'contact.created',
        'conversation.created',
        'conversation.assigned',
        'conversation.status_changed',
        'conversation.tags_changed',
      ];
      await waitFor(async () => receiver.at('/domain').length >= expected.length, 20_000, 'the domain events');
      const got = events(receiver.at('/domain'));
      assert.deepEqual(got.map((e) => e.type).sort(), [...expected].sort());
      const change = got.find((e) => e.type === 'contact.updated')!;
      assert.equal(change.data.id, contact.body.id);
      assert.equal(change.data.name, 'Dana B');
      assert.deepEqual(change.data.changes, [{ propertyName: 'Name', oldValue: 'Dana', newValue: 'Dana B' }]);
      assert.equal(got.find((e) => e.type === 'contact.deleted')!.data.name, 'Dana B');
      assert.equal(got.find((e) => e.type === 'conversation.status_changed')!.data.status, 2);
      assert.deepEqual(
        got.find((e) => e.type === 'conversation.tags_changed')!.data.tags.map((t: { id: string }) => t.id),
        [tag],
      );
      // A refused change writes no event.
      const before = receiver.at('/domain').length;
      assert.equal((await fx.a.api.post('/v1/contacts', { name: 'Dup', phoneNumber: '+14155550402' })).status, 409);
      await fx.a.api.post(`/v1/webhook-endpoints/${endpoint.id}/test`, { eventType: 'call' });
      await waitFor(async () => receiver.at('/domain').length === before + 1, 15_000, 'the marker event');
      assert.deepEqual(typesAt(receiver, '/domain').slice(before), ['call']);
      await fx.a.api.delete(`/v1/webhook-endpoints/${endpoint.id}`);
    });

    it('disables an endpoint failing for WEBHOOK_DISABLE_AFTER and tells the other endpoints', async () => {
      const failing = await createEndpoint(fx.a, { url: receiver.url('/dying'), eventTypes: ['call'] });
      const watcher = await createEndpoint(fx.a, { url: receiver.url('/watcher'), eventTypes: ['webhook_endpoint.disabled'] });
      receiver.script('/dying', ...Array.from({ length: 200 }, () => ({ status: 500 })));
      const disabled = await waitFor(
        async () => {
          await fx.a.api.post(`/v1/webhook-endpoints/${failing.id}/test`, { eventType: 'call' });
          await new Promise((resolve) => setTimeout(resolve, 400));
          const now = (await fx.a.api.get(`/v1/webhook-endpoints/${failing.id}`)).body;
          return now.disabled ? now : undefined;
        },
        30_000,
        'the endpoint to be disabled',
      );
      assert.match(disabled.disabledReason, /No successful attempt/);
      assert.ok(disabled.disabledAt);
      await waitFor(async () => receiver.at('/watcher').length === 1, 15_000, 'the operational event');
      const [event] = events(receiver.at('/watcher'));
      assert.equal(event.type, 'webhook_endpoint.disabled');
      assert.equal(event.data.endpointId, failing.id);
      assert.equal(event.data.url, receiver.url('/dying'));
      await waitFor(
        async () => (await deliveriesOf(fx.a, failing.id)).every((d) => d.status !== 'Pending'),
        15_000,
        'pending ones to stop',
      );
      const attempts = receiver.at('/dying').length;
      await fx.a.api.post(`/v1/webhook-endpoints/${failing.id}/test`, { eventType: 'call' });
      await new Promise((resolve) => setTimeout(resolve, 1000));
      assert.equal(receiver.at('/dying').length, attempts, 'a disabled endpoint is not called');
      const enabled = await fx.a.api.put(`/v1/webhook-endpoints/${failing.id}`, { disabled: false });
      assert.equal(enabled.body.disabled, false);
      assert.equal(enabled.body.disabledReason, null);
      for (const e of [failing, watcher]) await fx.a.api.delete(`/v1/webhook-endpoints/${e.id}`);
    });
  },
);

describeWithApp(
  'Webhook endpoints on private networks',
  { env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false', WEBHOOK_RETRY_SCHEDULE: '300ms' } },
  (fx) => {
    let receiver: WebhookReceiver;
    before(async () => {
      receiver = await WebhookReceiver.start();
    });
    after(() => receiver.close());

    it('refuses private and loopback URLs when saving, on create and update', async () => {
      const ok = await createEndpoint(fx.a, { url: 'https://hooks.example.com/in' });
      for (const url of [
        'http://127.0.0.1:8080/x',
        'http://localhost/x',
        'http://10.1.2.3/x',
        'http://[::1]/x',
        'http://169.254.169.254/x',
      ]) {
        for (const res of [
          await fx.a.api.post('/v1/webhook-endpoints', { url }),
          await fx.a.api.put(`/v1/webhook-endpoints/${ok.id}`, { url }),
        ]) {
          assert.equal(res.status, 400, `${url}: ${res.text}`);
          assert.equal(res.body.error.code, 'Webhooks:PrivateTarget');
          assert.deepEqual(res.body.error.validationErrors[0].members, ['url']);
        }
      }
      assert.equal((await fx.a.api.get(`/v1/webhook-endpoints/${ok.id}`)).body.url, 'https://hooks.example.com/in');
    });

    it('refuses at delivery a name that resolves to a private address, without connecting', async () => {
      // This machine's own name resolves to a loopback address (/etc/hosts): accepted when saved, refused when delivering.
      const url = receiver.url('/ssrf', hostname());
      const endpoint = await createEndpoint(fx.a, { url });
      const res = await fx.a.api.post(`/v1/webhook-endpoints/${endpoint.id}/test`, { eventType: 'contact.created' });
      assert.equal(res.status, 200, res.text);
      const failed = await waitFor(
        async () => (await deliveriesOf(fx.a, endpoint.id)).find((d) => d.status === 'Failed'),
        15_000,
        'the refusal',
      );
      assert.match(failed.lastError, /Refused: .* private networks are not allowed/);
      assert.equal(receiver.at('/ssrf').length, 0);
    });
  },
);
