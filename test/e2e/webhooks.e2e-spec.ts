import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeWithApp } from '../support/describe-with-app.js';
import { createChannel, waitFor, type WorkspaceFixture } from '../support/fixtures.js';
import { verifySignature, WebhookReceiver } from '../support/webhook-receiver.js';
import { publishEvent } from '../support/webhooks.js';
import { WebhookKind } from '../../src/webhooks/webhook-kind.js';

describeWithApp(
  'Outgoing webhooks: signed, retried, logged',
  {
    peers: { receiver: () => WebhookReceiver.start() },
    env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: '300ms,300ms,300ms' },
  },
  (fx) => {
    const delivery = async (ws: WorkspaceFixture, id: string) =>
      (await ws.api.get('/v1/webhook-deliveries?MaxResultCount=1000')).body.items.find((d: { id: string }) => d.id === id);
    const settled = (ws: WorkspaceFixture, id: string, timeoutMs = 15_000) =>
      waitFor(
        async () => {
          const d = await delivery(ws, id);
          return d && d.status !== 'Pending' ? d : undefined;
        },
        timeoutMs,
        `delivery ${id} to settle`,
      );

    it('delivers to a host name (localhost, no DNS needed) and to the IPv6 loopback', async () => {
      const v6 = await WebhookReceiver.start('::1');
      try {
        const named = await publishEvent(fx.t, fx.a.workspaceId, fx.receiver.url('/named', 'localhost'));
        const literal6 = await publishEvent(fx.t, fx.a.workspaceId, v6.url('/v6'));
        for (const id of [named, literal6]) {
          const d = await settled(fx.a, id);
          assert.equal(d.status, 'Succeeded', `${d.targetUrl}: ${d.lastError}`);
          assert.equal(d.attempts, 1);
        }
        assert.equal(fx.receiver.at('/named').length, 1);
        assert.equal(fx.receiver.at('/named')[0].headers.host, `localhost:${fx.receiver.port}`);
        assert.equal(v6.at('/v6').length, 1);
        assert.deepEqual(verifySignature(v6.at('/v6')[0], fx.a.webhookSecret), { hello: 'world' });
      } finally {
        await v6.close();
      }
    });

    it('delivers on the first attempt with Standard Webhooks headers the workspace secret verifies', async () => {
      const id = await publishEvent(fx.t, fx.a.workspaceId, fx.receiver.url('/ok'), { callId: 'c1', status: 1 }, WebhookKind.Call);
      const d = await settled(fx.a, id);
      assert.equal(d.status, 'Succeeded');
      assert.equal(d.attempts, 1);
      assert.equal(d.lastStatusCode, 200);
      assert.equal(d.nextAttemptAt, null);
      assert.equal(d.kind, 'call');
      assert.deepEqual(d.payload, { callId: 'c1', status: 1 });
      const [got] = fx.receiver.at('/ok');
      assert.equal(got.headers['webhook-id'], id);
      assert.equal(got.headers['webhook-event'], 'call');
      assert.equal(got.headers['content-type'], 'application/json');
      assert.match(String(got.headers['webhook-signature']), /^v1,[A-Za-z0-9+/=]+$/);
      assert.ok(Math.abs(Number(got.headers['webhook-timestamp']) - Date.now() / 1000) < 30);
      assert.deepEqual(verifySignature(got, fx.a.webhookSecret), { callId: 'c1', status: 1 });
      assert.throws(() => verifySignature(got, fx.b.webhookSecret), 'another workspace’s secret does not verify');
      const metrics = (await fx.t.http.get('/metrics')).text;
      assert.match(metrics, /webhook_deliveries_total\{kind="call",outcome="succeeded"\} [1-9]/);
      assert.match(metrics, /webhook_attempt_duration_seconds_count\{kind="call"\} [1-9]/);
    });

    it('retries 500, 500 then delivers on the third attempt with the same webhook-id', async () => {
      fx.receiver.script('/flaky', { status: 500 }, { status: 500 });
      const id = await publishEvent(fx.t, fx.a.workspaceId, fx.receiver.url('/flaky'));
      const d = await settled(fx.a, id);
      assert.equal(d.status, 'Succeeded');
      assert.equal(d.attempts, 3);
      const got = fx.receiver.at('/flaky');
      assert.equal(got.length, 3);
      assert.deepEqual(
        got.map((r) => r.headers['webhook-id']),
        [id, id, id],
      );
      for (const r of got) verifySignature(r, fx.a.webhookSecret);
    });

    it('stops at once on 410 Gone', async () => {
      fx.receiver.script('/gone', { status: 410 });
      const id = await publishEvent(fx.t, fx.a.workspaceId, fx.receiver.url('/gone'));
      const d = await settled(fx.a, id);
      assert.equal(d.status, 'Failed');
      assert.equal(d.attempts, 1);
      assert.equal(d.lastStatusCode, 410);
      await new Promise((resolve) => setTimeout(resolve, 800));
      assert.equal(fx.receiver.at('/gone').length, 1);
    });

    it('fails for good after the last scheduled retry and keeps the event in the log', async () => {
      fx.receiver.script('/down', { status: 503 }, { status: 503 }, { status: 503 }, { status: 503 }, { status: 503 });
      const id = await publishEvent(fx.t, fx.a.workspaceId, fx.receiver.url('/down'));
      const d = await settled(fx.a, id);
      assert.equal(d.status, 'Failed');
      assert.equal(d.attempts, 4, 'first attempt + 3 retries of the schedule');
      assert.equal(d.lastStatusCode, 503);
      assert.equal(d.lastError, 'HTTP 503');
      const failed = await fx.a.api.get('/v1/webhook-deliveries?Status=Failed&Kind=call');
      assert.ok(failed.body.items.some((x: { id: string }) => x.id === id));
      assert.ok(failed.body.items.every((x: { status: string }) => x.status === 'Failed'));
    });

    it('honours a Retry-After longer than the schedule', async () => {
      fx.receiver.script('/later', { status: 429, headers: { 'Retry-After': '2' } });
      const id = await publishEvent(fx.t, fx.a.workspaceId, fx.receiver.url('/later'));
      await waitFor(async () => fx.receiver.at('/later').length === 1, 5000, 'first attempt');
      const d = await waitFor(async () => {
        const x = await delivery(fx.a, id);
        return x?.attempts === 1 ? x : undefined;
      });
      const wait = Date.parse(d.nextAttemptAt) - Date.now();
      assert.ok(wait > 1000, `next attempt in ${wait} ms, not the 300 ms of the schedule`);
      const done = await settled(fx.a, id);
      assert.equal(done.status, 'Succeeded');
      const [first, second] = fx.receiver.at('/later');
      assert.ok(second.receivedAt - first.receivedAt >= 1900);
    });

    it('does not follow a redirect: it counts as a failed attempt', async () => {
      fx.receiver.script(
        '/moved',
        { status: 302, headers: { Location: fx.receiver.url('/elsewhere') } },
        { status: 302, headers: { Location: fx.receiver.url('/elsewhere') } },
        { status: 302, headers: { Location: fx.receiver.url('/elsewhere') } },
        { status: 302, headers: { Location: fx.receiver.url('/elsewhere') } },
      );
      const id = await publishEvent(fx.t, fx.a.workspaceId, fx.receiver.url('/moved'));
      const d = await settled(fx.a, id);
      assert.equal(d.status, 'Failed');
      assert.equal(d.lastStatusCode, 302);
      assert.equal(fx.receiver.at('/elsewhere').length, 0);
    });

    it('counts a receiver that does not answer within 10 s as a failed attempt', async () => {
      fx.receiver.script('/slow', { delayMs: 12_000 });
      const id = await publishEvent(fx.t, fx.a.workspaceId, fx.receiver.url('/slow'));
      const afterFirst = await waitFor(
        async () => {
          const x = await delivery(fx.a, id);
          return x?.attempts >= 1 ? x : undefined;
        },
        15_000,
        'the first attempt to time out',
      );
      assert.match(afterFirst.lastError, /No response within 10 s/);
      assert.equal(afterFirst.lastStatusCode, null);
      const d = await settled(fx.a, id);
      assert.equal(d.status, 'Succeeded');
      assert.equal(d.attempts, 2);
    });

    it('signs with both secrets during a rotation', async () => {
      const rotated = await fx.t.admin.post(`/admin/v1/workspaces/${fx.b.workspaceId}/webhook-secret`);
      const id = await publishEvent(fx.t, fx.b.workspaceId, fx.receiver.url('/rotation'));
      await settled(fx.b, id);
      const [got] = fx.receiver.at('/rotation');
      assert.equal(String(got.headers['webhook-signature']).split(' ').length, 2);
      verifySignature(got, rotated.body.webhookSecret);
      verifySignature(got, fx.b.webhookSecret);
    });

    it('redelivers a finished event with the same webhook-id', async () => {
      const id = await publishEvent(fx.t, fx.a.workspaceId, fx.receiver.url('/again'));
      await settled(fx.a, id);
      const res = await fx.a.api.post(`/v1/webhook-deliveries/${id}/redeliver`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.status, 'Pending');
      await waitFor(async () => fx.receiver.at('/again').length === 2, 5000, 'the redelivery');
      const d = await settled(fx.a, id);
      assert.equal(d.attempts, 2);
      assert.deepEqual(
        fx.receiver.at('/again').map((r) => r.headers['webhook-id']),
        [id, id],
      );
    });

    it('shows another workspace none of the log, and 404s its ids', async () => {
      const id = await publishEvent(fx.t, fx.a.workspaceId, fx.receiver.url('/private'));
      await settled(fx.a, id);
      const bLog = await fx.b.api.get('/v1/webhook-deliveries?MaxResultCount=1000');
      assert.ok(bLog.body.items.every((d: { id: string }) => d.id !== id));
      assert.ok(!JSON.stringify(bLog.body).includes('/private'));
      const steal = await fx.b.api.post(`/v1/webhook-deliveries/${id}/redeliver`);
      assert.equal(steal.status, 404);
      assert.equal(steal.body.error.code, 'Webhooks:DeliveryNotFound');
      assert.equal((await fx.a.api.post('/v1/webhook-deliveries/not-a-uuid/redeliver')).status, 404);
    });

    it('refuses to redeliver an event still being delivered (409) and bad filters (400)', async () => {
      fx.receiver.script('/hold', { delayMs: 1500 });
      const id = await publishEvent(fx.t, fx.a.workspaceId, fx.receiver.url('/hold'));
      const res = await fx.a.api.post(`/v1/webhook-deliveries/${id}/redeliver`);
      assert.equal(res.status, 409);
      assert.equal((await fx.a.api.get('/v1/webhook-deliveries?Status=Lost')).status, 400);
      await settled(fx.a, id);
    });
  },
);

describeWithApp(
  'Webhook targets on private networks',
  {
    peers: { receiver: () => WebhookReceiver.start() },
    env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false', WEBHOOK_RETRY_SCHEDULE: '300ms', RATE_LIMIT_IVR_CALLS_PER_SECOND: '1000' },
    workspaces: 1,
  },
  (fx) => {
    for (const [name, url] of [
      ['a loopback address', () => fx.receiver.url('/ssrf')],
      ['a name resolving to loopback', () => `http://localhost:${fx.receiver.port}/ssrf`],
      ['the cloud metadata address', () => 'http://169.254.169.254/latest/meta-data/'],
      ['an IPv4-mapped IPv6 loopback', () => `http://[::ffff:127.0.0.1]:${fx.receiver.port}/ssrf`],
      ['an IPv4-compatible (deprecated) IPv6 loopback', () => `http://[::127.0.0.1]:${fx.receiver.port}/ssrf`],
      ['the IPv6 loopback', () => `http://[::1]:${fx.receiver.port}/ssrf`],
      ['a private range', () => 'http://10.0.0.1/hook'],
    ] as const) {
      it(`refuses ${name} without connecting`, async () => {
        const id = await publishEvent(fx.t, fx.a.workspaceId, url());
        const d = await waitFor(async () => {
          const x = (await fx.a.api.get('/v1/webhook-deliveries?MaxResultCount=1000')).body.items.find((y: { id: string }) => y.id === id);
          return x?.status === 'Failed' ? x : undefined;
        });
        assert.match(d.lastError, /Refused: .* private networks are not allowed/);
        assert.equal(d.attempts, 1);
        assert.equal(fx.receiver.at('/ssrf').length, 0);
      });
    }

    const PRIVATE_LITERALS = [
      ['http://127.0.0.1:8080/hook', 'loopback'],
      ['http://10.1.2.3/hook', 'private'],
      ['http://169.254.169.254/latest/meta-data/', 'linkLocal'],
      ['http://[::1]/hook', 'loopback'],
      ['http://[::ffff:192.168.0.1]/hook', 'private'],
      ['http://[fd00::1]/hook', 'uniqueLocal'],
      ['http://100.64.0.1/hook', 'carrierGradeNat'],
      ['http://0.0.0.0/hook', 'unspecified'],
      ['http://localhost:3000/hook', 'loopback'],
    ] as const;

    const assertRefused = (res: { status: number; text: string; body: any }, member: string, url: string, range: string) => {
      assert.equal(res.status, 400, `${member} ${url}: ${res.text}`);
      assert.equal(res.body.error.code, 'Webhooks:PrivateTarget');
      assert.deepEqual(res.body.error.validationErrors[0].members, [member]);
      assert.ok(res.body.message.startsWith(`${member} '`), res.body.message);
      assert.ok(res.body.message.includes(`(${range})`), res.body.message);
    };

    it('refuses a channel whose webhookUrl or postCallWebhookUrl is a private or loopback literal, on create and update', async () => {
      const channels = `/admin/v1/workspaces/${fx.a.workspaceId}/channels`;
      const config = {
        name: 'Hooks',
        type: 3,
        phoneNumber: '+14155550140',
        whatsApp: { provider: 'sandbox' },
        voice: { provider: 'sandbox' },
      };
      const saved = await createChannel(fx.t, fx.a.workspaceId, {
        webhookUrl: 'https://hooks.example.com/wa',
        postCallWebhookUrl: 'http://93.184.215.14/calls',
      });
      for (const [url, range] of PRIVATE_LITERALS) {
        for (const member of ['webhookUrl', 'postCallWebhookUrl']) {
          assertRefused(await fx.t.admin.post(channels, { ...config, [member]: url }), member, url, range);
          assertRefused(await fx.t.admin.put(`${channels}/${saved.id}`, { ...config, [member]: url }), member, url, range);
        }
      }
      const listed = (await fx.a.api.get('/v1/channels/service-account')).body;
      assert.equal(listed.totalCount, 1, 'no channel was created');
      assert.equal(listed.items[0].webhookUrl, 'https://hooks.example.com/wa', 'the update changed nothing');
      assert.equal(listed.items[0].postCallWebhookUrl, 'http://93.184.215.14/calls');
    });

    it('refuses Create Outbound IVR with a private or loopback webhookUrl, for a single question and for a flow, recording no call', async () => {
      const channel = await createChannel(fx.t, fx.a.workspaceId, { name: 'Calls', phoneNumber: '+14155550141' });
      const flow = await fx.a.api.post('/v1/outbound-ivr-flows', {
        name: 'Bye',
        startStepId: 'bye',
        steps: [{ id: 'bye', type: 'Hangup', props: { ttsText: 'Goodbye.' } }],
      });
      assert.equal(flow.status, 200, flow.text);
      const call = { channelId: channel.id, destinationNumber: '+966501234567' };
      // An audio file, not ttsText: the accepted call below is still being placed when the app closes.
      const question = { ...call, audioFileUrl: 'https://media.example.com/question.wav', options: [{ digit: '1', description: 'Yes' }] };
      for (const [url, range] of PRIVATE_LITERALS) {
        assertRefused(await fx.a.api.post('/v1/outbound-ivr', { ...question, webhookUrl: url }), 'webhookUrl', url, range);
        assertRefused(
          await fx.a.api.post('/v1/outbound-ivr', { ...call, flowId: flow.body.id, webhookUrl: url }),
          'webhookUrl',
          url,
          range,
        );
      }
      assert.equal((await fx.a.api.get('/v1/outbound-ivr')).body.totalCount, 0, 'no call was recorded');
      const byName = await fx.a.api.post('/v1/outbound-ivr', { ...question, webhookUrl: 'https://hooks.example.com/ivr' });
      assert.equal(byName.status, 200, `a name is judged when delivering: ${byName.text}`);
    });
  },
);
