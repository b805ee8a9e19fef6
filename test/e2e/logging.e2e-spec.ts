import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeWithApp } from '../support/describe-with-app.js';
import { waitFor } from '../support/fixtures.js';
import { LEVEL, LogCapture } from '../support/log-capture.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { publishEvent } from '../support/webhooks.js';

const log = new LogCapture();

describeWithApp(
  'logs: a line per request, a quiet start, failed webhook attempts',
  {
    env: { LOG_LEVEL: 'info', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RETRY_SCHEDULE: '10m' },
    logDestination: log,
    peers: { receiver: () => WebhookReceiver.start() },
    workspaces: 1,
  },
  (fx) => {
    it('starts with a handful of info lines: none of Nest wiring modules and routes', () => {
      const startLines = log.records.filter((record) => record.msg !== 'request completed');
      const wiring = startLines.filter((record) => ['InstanceLoader', 'RoutesResolver', 'RouterExplorer'].includes(String(record.context)));
      assert.deepEqual(wiring, []);
      assert.ok(startLines.length <= 5, `start lines: ${JSON.stringify(startLines.map((record) => record.msg))}`);
    });

    it('writes one info line per request: route pattern, URL, status, duration, the X-Request-Id and the workspace', async () => {
      const created = await fx.a.api.post('/v1/contacts', { name: 'Logged', phoneNumber: '+14155550123' });
      assert.equal(created.status, 200, created.text);
      const read = await fx.a.api.get(`/v1/contacts/${created.body.id}`);
      assert.equal(read.status, 200, read.text);
      const requestId = read.headers.get('x-request-id');
      assert.ok(requestId);
      const line = await waitFor(async () => log.find((record) => record.reqId === requestId));
      assert.equal(line.level, LEVEL.info);
      assert.equal(line.msg, 'request completed');
      assert.equal(line.method, 'GET');
      assert.equal(line.route, '/v1/contacts/:id');
      assert.equal(line.url, `/v1/contacts/${created.body.id}`);
      assert.equal(line.statusCode, 200);
      assert.equal(line.workspaceId, fx.a.workspaceId);
      assert.equal(typeof line.responseTime, 'number');
      assert.equal(log.records.filter((record) => record.reqId === requestId).length, 1);
    });

    it('writes a refused request too, with no workspace, and a 404 of no route as unmatched', async () => {
      const refused = await fx.t.http.get('/v1/contacts');
      const unmatched = await fx.t.http.get('/v1/no-such-route?hub.verify_token=s3cret');
      const refusedLine = await waitFor(async () => log.find((record) => record.reqId === refused.headers.get('x-request-id')));
      assert.equal(refusedLine.statusCode, 401);
      assert.equal(refusedLine.route, '/v1/contacts');
      assert.equal(refusedLine.workspaceId, undefined);
      const unmatchedLine = await waitFor(async () => log.find((record) => record.reqId === unmatched.headers.get('x-request-id')));
      assert.equal(unmatchedLine.statusCode, 404);
      assert.equal(unmatchedLine.route, 'unmatched');
      assert.equal(unmatchedLine.url, '/v1/no-such-route?hub.verify_token=[redacted]');
    });

    it('keeps health probes and metrics scrapes out of the log at info', async () => {
      const probe = await fx.t.http.get('/health/live');
      const scrape = await fx.t.http.get('/metrics');
      const after = await fx.t.http.get('/v1/contacts');
      await waitFor(async () => log.find((record) => record.reqId === after.headers.get('x-request-id')));
      for (const quiet of [probe, scrape])
        assert.equal(
          log.find((record) => record.reqId === quiet.headers.get('x-request-id')),
          undefined,
        );
    });

    it('warns of a failed webhook attempt with its delivery, event, host, status, attempt and next attempt', async () => {
      fx.receiver.script('/failing', { status: 500 });
      const before = Date.now();
      const deliveryId = await publishEvent(fx.t, fx.a.workspaceId, fx.receiver.url('/failing'));
      const warning = await waitFor(async () => log.find((record) => record.deliveryId === deliveryId));
      assert.equal(warning.level, LEVEL.warn);
      assert.equal(warning.kind, 'call');
      assert.equal(warning.host, `127.0.0.1:${fx.receiver.port}`);
      assert.equal(warning.statusCode, 500);
      assert.equal(warning.attempt, 1);
      const nextAttemptAt = Date.parse(String(warning.nextAttemptAt));
      assert.ok(nextAttemptAt >= before + 10 * 60_000 && nextAttemptAt <= Date.now() + 10 * 60_000, String(warning.nextAttemptAt));
      assert.match(
        String(warning.msg),
        new RegExp(`${deliveryId}.*attempt 1 failed \\(HTTP 500\\); next attempt at ${String(warning.nextAttemptAt)}`),
      );
    });
  },
);
